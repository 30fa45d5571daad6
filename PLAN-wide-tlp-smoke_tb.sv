// Scratch smoke test of tpu_host_dma at any TlpWidth (working file of PLAN-wide-tlp.md; delete
// before merge, like the plan: the project's real DMA tests are tests/rtl/host_if/test_host_dma).
// A tiny root complex in SV: enumerates (Command, Device Control), answers MRds with CplDs
// split at 64-byte boundaries, applies MWrs to a byte memory. Client 0 reads 1 KiB above 4 GiB
// and 480 bytes below it; the write engine gets a full run, runs with partial first and last
// beats (shifts by DW 1 and by the beat's last DW) and a beat split into 1-DW writes. Every
// read beat and every written byte is checked. Run (about a minute of CPU):
//   $ verilator --binary --timing -Wno-fatal -Irtl/prim -I. -GTlpWidth=256 --top-module smoke_tb \
//     rtl/pkg/tpu_pkg.sv rtl/prim/tpu_fifo.sv rtl/prim/tpu_mem_1r1w.sv rtl/host_if/tpu_host_rx.sv \
//     rtl/host_if/tpu_host_tx.sv rtl/host_if/tpu_host_dma_rd.sv rtl/host_if/tpu_host_dma_wr.sv \
//     rtl/host_if/tpu_host_cfg.sv rtl/host_if/tpu_host_dma.sv PLAN-wide-tlp-smoke_tb.sv \
//     -Mdir /tmp/smoke_256 && /tmp/smoke_256/Vsmoke_tb
module smoke_tb;
  parameter int unsigned TlpWidth = 256;
  localparam int unsigned W = TlpWidth;
  localparam int unsigned D = W / 32;
  localparam int unsigned B = W / 8;

  logic clk = 1'b0, rst_n = 1'b0;
  always #5 clk = ~clk;

  logic          rx_valid = 1'b0, rx_ready, rx_sop = 1'b0, rx_eop = 1'b0;
  logic [W-1:0]  rx_data = '0;
  logic          tx_valid, tx_sop, tx_eop;
  logic [W-1:0]  tx_data;
  logic          reg_req_valid, reg_req_write, reg_rsp_ready;
  logic [11:0]   reg_req_addr;
  logic [31:0]   reg_req_wdata;
  logic [3:0]    reg_req_be;
  logic [1:0]    rd_req_valid = '0, rd_req_ready, rd_rsp_valid, rd_rsp_error;
  logic [127:0]  rd_req_addr = '0;
  logic [2*W-1:0] rd_rsp_data;
  logic          wr_req_valid = 1'b0, wr_req_ready, wr_empty;
  logic [63:0]   wr_req_addr = '0;
  logic [W-1:0]  wr_req_data = '0;
  logic [B-1:0]  wr_req_mask = '0;
  logic          msi_sent, rd_busy, cpl_unexpected, timeout, rd_fail, rd_fail_client;
  logic [1:0]    rd_fail_kind;
  logic [2:0]    rd_fail_status;
  logic [7:0]    rd_fail_tag;
  logic [15:0]   rx_drop_count;

  `include "PLAN-wide-tlp-smoke_rc.svh"

  tpu_host_dma #(
    .MaxPayload(256),
    .MaxReadReq(512),
    .NumTags   (16),
    .Timeout   (4000),
    .IdleGap   (4),
    .TlpWidth  (TlpWidth)
  ) dut (
    .clk_i(clk), .rst_ni(rst_n),
    .rx_valid_i(rx_valid), .rx_ready_o(rx_ready), .rx_data_i(rx_data), .rx_sop_i(rx_sop),
    .rx_eop_i(rx_eop),
    .tx_valid_o(tx_valid), .tx_ready_i(tx_ready), .tx_data_o(tx_data), .tx_sop_o(tx_sop),
    .tx_eop_o(tx_eop),
    .reg_req_valid_o(reg_req_valid), .reg_req_ready_i(1'b1), .reg_req_write_o(reg_req_write),
    .reg_req_addr_o(reg_req_addr), .reg_req_wdata_o(reg_req_wdata), .reg_req_be_o(reg_req_be),
    .reg_rsp_valid_i(1'b0), .reg_rsp_ready_o(reg_rsp_ready), .reg_rsp_rdata_i(32'h0),
    .rd_flush_i(2'b00), .rd_req_valid_i(rd_req_valid), .rd_req_ready_o(rd_req_ready),
    .rd_req_addr_i(rd_req_addr), .rd_req_last_i(2'b00), .rd_rsp_valid_o(rd_rsp_valid),
    .rd_rsp_ready_i({1'b1, rsp_ready}), .rd_rsp_data_o(rd_rsp_data), .rd_rsp_error_o(rd_rsp_error),
    .wr_flush_i(1'b0), .wr_close_i(1'b0), .wr_req_valid_i(wr_req_valid),
    .wr_req_ready_o(wr_req_ready), .wr_req_addr_i(wr_req_addr), .wr_req_data_i(wr_req_data),
    .wr_req_mask_i(wr_req_mask), .wr_held_i(1'b0), .wr_empty_o(wr_empty),
    .msi_request_i(1'b0), .msi_addr_i(64'h0), .msi_data_i(16'h0), .msi_sent_o(msi_sent),
    .rd_busy_o(rd_busy), .cpl_unexpected_o(cpl_unexpected), .timeout_o(timeout),
    .rd_fail_o(rd_fail), .rd_fail_kind_o(rd_fail_kind), .rd_fail_status_o(rd_fail_status),
    .rd_fail_client_o(rd_fail_client), .rd_fail_tag_o(rd_fail_tag),
    .rx_drop_count_o(rx_drop_count)
  );

  // ---- checks on the device's status ---------------------------------------------------------
  always @(posedge clk) begin
    if (rst_n && (cpl_unexpected || timeout || rd_fail || rx_drop_count != 0 ||
                  (rd_rsp_valid[0] && rd_rsp_error[0]))) begin
      $display("ERROR: cpl_unexpected %b timeout %b fail %b (kind %0d tag %0d) drops %0d",
               cpl_unexpected, timeout, rd_fail, rd_fail_kind, rd_fail_tag, rx_drop_count);
      errors++;
    end
  end

  // ---- client 0 reads ------------------------------------------------------------------------
  logic [63:0] expq[$];
  logic        rsp_ready = 1'b1;  // client 0 takes a read beat (3 cycles in 4 with +stress)

  always @(posedge clk) rsp_ready <= !stress || rc_lfsr[9:8] != 2'b00;
  int beats_checked = 0;

  always @(posedge clk) begin
    if (rst_n && rd_rsp_valid[0] && rsp_ready) begin
      logic [63:0] a;
      if (expq.size() == 0) begin
        $display("ERROR: read beat without a request"); errors++;
      end else begin
        a = expq.pop_front();
        if (verbose) $display("%0t: read beat for %h: byte 0 %h", $time, a, rd_rsp_data[7:0]);
        for (int b = 0; b < B; b++) begin
          if (rd_rsp_data[8*b +: 8] != host_byte(a + 64'(b))) begin
            $display("ERROR: read %h byte %0d = %h, expected %h", a, b, rd_rsp_data[8*b +: 8],
                     host_byte(a + 64'(b)));
            errors++;
            break;
          end
        end
        beats_checked++;
      end
    end
  end

  // Requests are driven after a falling edge and their ready looked at before the next rising
  // edge (a process resumed by the rising edge may see the values after it).
  task automatic read_run(logic [63:0] base, int beats);
    for (int i = 0; i < beats; i++) begin
      @(negedge clk);
      rd_req_valid[0]   = 1'b1;
      rd_req_addr       = {64'h0, base + 64'(i * B)};
      #1;
      while (!rd_req_ready[0]) begin
        @(negedge clk);
        #1;
      end
      expq.push_back(base + 64'(i * B));
      @(posedge clk);
    end
    @(negedge clk);
    rd_req_valid[0] = 1'b0;
  endtask

  // ---- writes ----------------------------------------------------------------------------------
  logic [7:0] expmem [logic [63:0]];

  always @(posedge clk) begin
    if (verbose && wr_req_valid && wr_req_ready) begin
      $display("%0t: write beat %h mask %h taken", $time, wr_req_addr, wr_req_mask);
    end
  end

  task automatic write_beat(logic [63:0] a, logic [B-1:0] mask);
    @(negedge clk);
    wr_req_valid = 1'b1;
    wr_req_addr  = a;
    wr_req_mask  = mask;
    for (int b = 0; b < B; b++) begin
      wr_req_data[8*b +: 8] = write_byte(a + 64'(b));
      if (mask[b]) expmem[a + 64'(b)] = write_byte(a + 64'(b));
    end
    #1;
    while (!wr_req_ready) begin
      @(negedge clk);
      #1;
    end
    @(posedge clk);
  endtask

  task automatic write_idle();
    @(negedge clk);
    wr_req_valid = 1'b0;
  endtask

  initial begin
    repeat (4) @(posedge clk);
    rst_n <= 1'b1;
    @(posedge clk);
    enumerate();
    repeat (20) @(posedge clk);
    read_run(64'h1_0000_0040, 1024 / B);  // above 4 GiB, not MRRS aligned
    read_run(64'h3000 + 64'(B), 480 / B);  // below 4 GiB
    for (int i = 0; i < 20; i++) write_beat(64'h8000 + 64'(i * B), '1);
    write_idle();
    repeat (2) @(posedge clk);
    // A run with a partial first beat (bytes 5..) and a partial last beat (..byte 2).
    write_beat(64'h1_2345_0000, {B{1'b1}} << 5);
    for (int i = 1; i < 9; i++) write_beat(64'h1_2345_0000 + 64'(i * B), '1);
    write_beat(64'h1_2345_0000 + 64'(9 * B), B'(7));
    // A run starting in the beat's last DW (the largest payload shift) and ending after one
    // byte.
    write_beat(64'ha000, {B{1'b1}} << (B - 3));
    for (int i = 1; i < 4; i++) write_beat(64'ha000 + 64'(i * B), '1);
    write_beat(64'ha000 + 64'(4 * B), B'(1));
    // A beat whose mask is not one range: 1-DW writes.
    write_beat(64'h9000, B'(32'h0000_f0f1));
    write_idle();
    repeat (400) @(posedge clk);
    if (expq.size() != 0) begin
      $display("ERROR: %0d read beats never came", expq.size()); errors++;
    end
    if (!wr_empty) begin $display("ERROR: write engine not empty"); errors++; end
    foreach (expmem[a]) begin
      if (!hostmem.exists(a) || hostmem[a] != expmem[a]) begin
        $display("ERROR: host byte %h not written as %h", a, expmem[a]); errors++;
        break;
      end
    end
    if (hostmem.size() != expmem.size()) begin
      $display("ERROR: %0d bytes written, %0d expected", hostmem.size(), expmem.size());
      errors++;
    end
    $display("TlpWidth %0d: %0d read beats checked, %0d MRds, %0d CplDs, %0d MWrs, %0d %s: %s",
             TlpWidth, beats_checked, mrds, cpls_sent, mwrs, hostmem.size(), "bytes written",
             errors == 0 ? "PASS" : "FAIL");
    $finish;
  end
endmodule
