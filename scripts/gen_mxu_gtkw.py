#!/usr/bin/env python3
"""gen_mxu_gtkw.py [N] > OUT.gtkw: the GTKWave layout for an MXU trace of size N (default 8, the
size `make waves` traces; waveforms/mxu.gtkw). Lanes of the flat port vectors are shown as
separate signed values, built from the vector's bits with GTKWave's #{name} syntax. Above
N = 8 the layout shows a fixed corner, not every lane: lanes 0 .. 3 and N - 1 of each port, and
PEs (0,0) and (N-1,N-1), so a layout for N = 256 stays readable. Rerun after renaming MXU
signals."""
import sys

N = int(sys.argv[1]) if len(sys.argv) > 1 else 8
TOP = "TOP.tpu_mxu."
lines = [
    f"[*] Open TPU: MXU layout for a size-{N} trace (make waves; bench/mxu_demo --size {N} --trace F)",
    "[timestart] 0",
    "[size] 1600 1000",
    "[signals_width] 300",
    "[sst_expanded] 0",
    "[sst_vpaned_height] 200",
    "*-15.000000 0",
]

BIT, SDEC, HEX = "@28", "@424", "@22"


def group(name, body):
    lines.extend(["@800200", "-" + name])
    body()
    lines.extend(["@1000200", "-" + name])


def plain(fmt, names):
    lines.append(fmt)
    lines.extend(names)


CORNER = 4  # lanes shown from the first corner above N = 8 (and the last lane)


def shown_lanes(count):
    return range(count) if count <= 8 else list(range(CORNER)) + [count - 1]


def lanes(port, lane_bits, count, label):
    """One signed row per shown lane of a flat vector port: lane i is bits
    [i*lane_bits +: lane_bits]."""
    width = lane_bits * count
    full = f"{TOP}{port}[{width - 1}:0]"
    lines.append(SDEC)
    for i in shown_lanes(count):
        msb = i * lane_bits + lane_bits - 1
        # (k)name is bit k of the vector counted from its MSB.
        bits = " ".join(f"({width - 1 - b}){full}" for b in range(msb, msb - lane_bits, -1))
        lines.append(f"#{{{label}[{i}]}} {bits}")


def pe(r, c):
    return f"{TOP}u_array.g_pes.g_row[{r}].g_col[{c}].u_pe."


group("Handshakes", lambda: plain(BIT, [TOP + s for s in [
    "clk_i", "rst_ni", "weight_valid_i", "weight_ready_o", "act_valid_i", "act_ready_o",
    "act_new_tile_i", "tile_loaded_o", "out_valid_o"]]))
group("Weight banks (control)", lambda: plain(BIT, [TOP + "u_weight_ctrl." + s for s in [
    "cur_bank_q", "loaded_q", "weight_capture_o", "weight_bank_o"]]) or plain(
    "@24", [TOP + "u_weight_ctrl.beat_q[%d:0]" % max(0, (N - 1).bit_length() - 1),
            TOP + "u_weight_ctrl.drain_q[%d:0]" % max(0, (N - 1).bit_length() - 1)]))
group("Weight rows in (one tile row per beat)", lambda: lanes("weight_row_i", 8, N, "w_col"))
group("Activation rows in", lambda: (lanes("act_row_i", 8, N, "act_k"),
                                     plain(HEX, [TOP + "act_tag_i[15:0]"])))
for (r, c) in [(0, 0), (N - 1, N - 1)]:
    group(f"PE({r},{c}): both weight banks, the activation and its bank select",
          lambda r=r, c=c: (plain(SDEC, [pe(r, c) + "bank0_q[7:0]", pe(r, c) + "bank1_q[7:0]",
                                          pe(r, c) + "act_i[7:0]"]),
                            plain(BIT, [pe(r, c) + "act_sel_i"]),
                            plain(SDEC, [pe(r, c) + "psum_o[31:0]"])))
group("Result rows out (2N cycles after their activation row)",
      lambda: (lanes("out_row_o", 32, N, "out_col"), plain(HEX, [TOP + "out_tag_o[15:0]"])))

sys.stdout.write("\n".join(lines) + "\n")
