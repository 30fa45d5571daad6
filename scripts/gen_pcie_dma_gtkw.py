#!/usr/bin/env python3
"""gen_pcie_dma_gtkw.py DUMP.fst [OUT.gtkw]: writes the GTKWave layout of the TPU's host side
(default waveforms/pcie_dma.gtkw) for system traces like DUMP (`tpu dense --backend rtl --trace
F`): it finds the tpu_top scope in the dump and takes every vector's width from it. Groups: the
device's status, the RX and TX TLP streams with each header's fmt/type and length decoded, the
BAR0 register file with the interrupt and MSI, the DMA read engine (requests, MRds, tags in use,
completions, errors), the DMA write engine, the instruction ring, the core's host-memory port,
and the MXU with the stall causes and performance counters. The zoom shows all of DUMP: make
it from the `make waves` run. Rerun after renaming host-interface signals (docs/host_if.md)."""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from gen_gtkw_common import (  # noqa: E402
    BIN, DEC, Layout, bits, find_scope, fst_end_time, fst_signals, signal, write, zoom_to_fit)

HIF = "u_host_if."
DMA = HIF + "u_dma."  # tpu_host_dma: receive, read and write engines, transmit
PERF = "u_core.u_ctrl.u_perf."


def tlp_header(port, who):
    """DW0 of a TLP's first beat (bits 31:0 of the beat): fmt/type and length in DWs (0 is 1024).
    Other beats carry payload there: read these where sop is 1."""
    legend = "00 20 MRd, 40 60 MWr/MSI, 04 44 CfgRd0/CfgWr0, 0A Cpl, 4A CplD"
    return [bits(port, 31, 24, f"{who} fmt/type at sop ({legend})"),
            bits(port, 9, 0, f"{who} length at sop (DWs)", DEC)]


GROUPS = [
    ("Device: clock, reset, run status", [
        signal("clk_i"), signal("rst_ni"), signal("core_soft_reset", "soft reset (core)"),
        signal("running_o"), signal("done_o"), signal("error_o"), signal("dma_busy_o"),
        signal("msi_sent_o")]),
    ("RX TLP stream (link -> device)", [
        signal("rx_valid_i"), signal("rx_ready_o"), signal("rx_sop_i"), signal("rx_eop_i"),
        *tlp_header("rx_data_i", "rx"), signal("rx_data_i"),
        signal(DMA + "u_rx.state_q", "rx state"),
        signal("rx_drop_count_o", "rx TLPs dropped", DEC)]),
    ("TX TLP stream (device -> link)", [
        signal("tx_valid_o"), signal("tx_ready_i"), signal("tx_sop_o"), signal("tx_eop_o"),
        *tlp_header("tx_data_o", "tx"), signal("tx_data_o"),
        signal(DMA + "u_tx.state_q", "tx state"),
        signal(DMA + "u_tx.mrd_go", "tx picks MRd"), signal(DMA + "u_tx.mwr_go", "tx picks MWr"),
        signal(DMA + "u_tx.msi_go", "tx picks MSI")]),
    ("Register file (BAR0, interrupt, MSI)", [
        signal(HIF + "reg_req_valid", "BAR0 req valid"),
        signal(HIF + "reg_req_ready", "BAR0 req ready"),
        signal(HIF + "reg_req_write", "BAR0 req write"),
        signal(HIF + "reg_req_addr", "BAR0 addr"), signal(HIF + "reg_req_wdata", "BAR0 wdata"),
        signal(HIF + "reg_req_be", "BAR0 byte enables"),
        signal(HIF + "reg_rsp_valid", "BAR0 read data valid"),
        signal(HIF + "reg_rsp_rdata", "BAR0 read data"),
        signal(HIF + "doorbell", "doorbell (RING_TAIL written)"),
        signal(HIF + "irq_enable", "CONTROL irq_enable"),
        signal(HIF + "irq_mask", "IRQ_MASK (0 done, 1 error)", BIN),
        signal(HIF + "u_regs.irq_status_q", "IRQ_STATUS (0 done, 1 error)", BIN),
        signal("irq", "core irq"), signal(HIF + "msi_request", "MSI requested"),
        signal(HIF + "msi_addr", "MSI_ADDR"), signal(HIF + "msi_data", "MSI_DATA")]),
    ("DMA read engine (client 0 core, 1 ring)", [
        signal(HIF + "rd_req_valid", "read req valid [1 ring, 0 core]", BIN),
        signal(HIF + "rd_req_ready", "read req ready [1 ring, 0 core]", BIN),
        signal(DMA + "mrd_valid", "MRd valid"), signal(DMA + "mrd_ready", "MRd sent"),
        signal(DMA + "mrd_addr", "MRd addr"), signal(DMA + "mrd_dwords", "MRd length (DWs)", DEC),
        signal(DMA + "mrd_tag", "MRd tag", DEC),
        signal(DMA + "u_dma_rd.busy_q", "tags in use (bit per tag)"),
        signal(DMA + "u_dma_rd.used0", "tags held by core", DEC),
        signal(DMA + "u_dma_rd.used1", "tags held by ring", DEC),
        signal(DMA + "cpl_valid", "cpl beat valid"), signal(DMA + "cpl_first", "cpl first beat"),
        signal(DMA + "cpl_last", "cpl last beat"), signal(DMA + "cpl_tag", "cpl tag", DEC),
        signal(DMA + "cpl_status", "cpl status (0 SC)"),
        signal(DMA + "cpl_dwords", "cpl length (DWs)", DEC),
        signal(DMA + "cpl_byte_count", "cpl byte count", DEC),
        signal(HIF + "rd_rsp_valid", "beat out valid [1 ring, 0 core]", BIN),
        signal(HIF + "rd_rsp_ready", "beat out ready [1 ring, 0 core]", BIN),
        signal(HIF + "rd_rsp_error", "beat out error [1 ring, 0 core]", BIN),
        signal(HIF + "rd_busy", "read engine busy"),
        signal(HIF + "cpl_unexpected", "cpl dropped (no request)"),
        signal(HIF + "rd_timeout", "read timed out"),
        signal("cpl_drop_count_o", "cpls dropped", DEC),
        signal("timeout_count_o", "reads timed out", DEC)]),
    ("DMA write engine", [
        signal(HIF + "wr_req_valid", "write beat valid"),
        signal(HIF + "wr_req_ready", "write beat ready"),
        signal(DMA + "wr_close", "close run (a read follows)"),
        signal(DMA + "u_dma_wr.open_q", "run open"),
        signal(DMA + "u_dma_wr.run_nb_q", "run beats", DEC),
        signal(DMA + "u_dma_wr.desc_count", "MWrs queued", DEC),
        signal(DMA + "hdr_valid", "MWr valid"), signal(DMA + "hdr_ready", "MWr header sent"),
        signal(DMA + "hdr_addr", "MWr addr"), signal(DMA + "hdr_dwords", "MWr length (DWs)", DEC),
        signal(DMA + "hdr_first_be", "MWr first BE"), signal(DMA + "hdr_last_be", "MWr last BE"),
        signal(DMA + "pay_valid", "payload valid"), signal(DMA + "pay_ready", "payload ready"),
        signal(DMA + "pay_last", "payload last"), signal(HIF + "wr_empty", "write engine empty")]),
    ("Instruction ring", [
        signal(HIF + "ring_base", "RING_BASE"), signal(HIF + "ring_size", "RING_SIZE", DEC),
        signal(HIF + "ring_tail", "RING_TAIL (host)", DEC),
        signal(HIF + "ring_head", "RING_HEAD (core took)", DEC),
        signal(HIF + "u_ring.fetch_q", "next slot fetched", DEC),
        signal(HIF + "u_ring.out_q", "slots fetched, not taken", DEC),
        signal("ring_active", "ring active"), signal("core_start", "core start"),
        signal(HIF + "ring_req_valid", "slot read valid"),
        signal(HIF + "ring_req_ready", "slot read ready"),
        signal(HIF + "ring_req_addr", "slot read addr"),
        signal(HIF + "ring_req_last", "slot read last of burst"),
        signal(HIF + "ring_rsp_ready", "slot data taken"),
        signal(HIF + "ring_fetch_error", "fetch error"),
        signal("instr_valid", "instr valid"), signal("instr_ready", "instr ready"),
        signal("instr", "instr")]),
    ("Core DMA port (host memory, one 16-byte beat per request)", [
        signal("u_core.u_ctrl.u_dma.state_q", "core dma unit state"),
        signal("hm_req_valid"), signal("hm_req_ready"), signal("hm_req_write"),
        signal("hm_req_addr"), signal("hm_req_wmask"), signal("hm_req_wdata"),
        signal("hm_rsp_valid"), signal("hm_rsp_ready"), signal("hm_rsp_error"),
        signal("hm_rsp_rdata")]),
    ("MXU, stalls and performance counters (counting while running)", [
        signal("u_core.u_mxu.act_valid_i", "MXU act valid"),
        signal("u_core.u_mxu.act_ready_o", "MXU act ready"),
        signal("u_core.u_mxu.tile_loaded_o", "MXU tile loaded"),
        signal("u_core.u_mxu.out_valid_o", "MXU out valid"),
        signal(PERF + "stall_weights_i", "stall: weights"),
        signal(PERF + "stall_act_in_i", "stall: UB row"),
        signal(PERF + "stall_dma_i", "stall: DMA (host memory)"),
        signal(PERF + "stall_dep_i", "stall: token"),
        *[signal(PERF + f"cnt_q[{i}]", f"perf {name}", DEC) for i, name in enumerate([
            "cycles", "MXU rows", "stall weights", "stall UB row", "stall DMA", "stall token",
            "rows DMA", "rows weights", "rows matrix", "rows act"])]]),
]


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    have = fst_signals(sys.argv[1])
    top = find_scope(have, ".u_host_if.u_dma.u_dma_rd.busy_o", "tpu_top", sys.argv[1])
    out = sys.argv[2] if len(sys.argv) == 3 else os.path.join("waveforms", "pcie_dma.gtkw")
    layout = Layout(have, top, f"Open TPU: PCIe and DMA layout for system traces with {top} "
                    f"(tpu dense --backend rtl --trace F; generated by "
                    f"scripts/gen_pcie_dma_gtkw.py)", signals_width=560,
                    zoom=zoom_to_fit(fst_end_time(sys.argv[1]), 560))
    for title, rows in GROUPS:
        layout.group(title, rows)
    write(layout, out)


if __name__ == "__main__":
    main()
