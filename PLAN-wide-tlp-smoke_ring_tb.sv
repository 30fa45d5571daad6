// Scratch smoke test of the instruction ring through tpu_host_if at any TlpWidth (working file of
// PLAN-wide-tlp.md, deleted with it): above 128 bits the ring's 16-byte slot reads reach the read
// engine through a second beat adapter. BAR0 writes over TLPs set up a ring of 64 slots at a host
// address that is 16- but not 32-byte aligned and ring the doorbell twice (tail 37, then 60 while
// the core runs); a core model takes instructions with stalls; then a soft reset, a ring fetch
// answered UR (nothing delivered), a soft reset and 30 slots from slot 0 again. Every instruction
// is checked against host memory; MRds must be beat aligned. Build like PLAN-wide-tlp-smoke_tb.sv
// with the packages (tpu_pkg, tpu_isa_pkg, tpu_regs_pkg), every rtl/host_if file and --top-module
// smoke_ring_tb.
module smoke_ring_tb;
  parameter int unsigned TlpWidth = 256;
  localparam int unsigned W = TlpWidth;
  localparam int unsigned D = W / 32;
  localparam int unsigned B = W / 8;
  localparam int unsigned NumInstr = 60;
  localparam logic [63:0] RingBase = 64'h1_0000_0010;

  logic clk = 1'b0, rst_n = 1'b0;
  always #5 clk = ~clk;

  logic          rx_valid = 1'b0, rx_ready, rx_sop = 1'b0, rx_eop = 1'b0;
  logic [W-1:0]  rx_data = '0;
  logic          tx_valid, tx_sop, tx_eop;
  logic [W-1:0]  tx_data;
  logic          core_soft_reset, core_rst_n, core_start, instr_valid;
  logic          instr_ready = 1'b0;
  logic [127:0]  instr;
  logic          hm_req_ready, hm_rsp_valid, hm_rsp_error;
  logic [127:0]  hm_rsp_rdata;
  logic          running = 1'b0;
  logic          dma_busy, ring_active, msi_sent, cpl_unexpected, timeout;
  logic [15:0]   rx_drop_count, cpl_drop_count, timeout_count;

  `include "PLAN-wide-tlp-smoke_rc.svh"

  tpu_host_if #(
    .N         (16),
    .MaxPayload(256),
    .MaxReadReq(512),
    .NumTags   (16),
    .Timeout   (4000),
    .RingSlots (8),
    .TlpWidth  (TlpWidth)
  ) dut (
    .clk_i(clk), .rst_ni(rst_n),
    .rx_valid_i(rx_valid), .rx_ready_o(rx_ready), .rx_data_i(rx_data), .rx_sop_i(rx_sop),
    .rx_eop_i(rx_eop),
    .tx_valid_o(tx_valid), .tx_ready_i(tx_ready), .tx_data_o(tx_data), .tx_sop_o(tx_sop),
    .tx_eop_o(tx_eop),
    .core_soft_reset_o(core_soft_reset), .core_rst_no(core_rst_n), .core_start_o(core_start),
    .instr_valid_o(instr_valid), .instr_ready_i(instr_ready), .instr_o(instr),
    .hm_req_valid_i(1'b0), .hm_req_ready_o(hm_req_ready), .hm_req_write_i(1'b0),
    .hm_req_addr_i(48'h0), .hm_req_wdata_i(128'h0), .hm_req_wmask_i(16'h0),
    .hm_rsp_valid_o(hm_rsp_valid), .hm_rsp_ready_i(1'b1), .hm_rsp_rdata_o(hm_rsp_rdata),
    .hm_rsp_error_o(hm_rsp_error),
    .running_i(running), .done_i(1'b0), .error_i(1'b0), .error_code_i(8'h0),
    .error_index_i(32'h0), .irq_i(1'b0), .perf_i('0),
    .dma_busy_o(dma_busy), .ring_active_o(ring_active), .msi_sent_o(msi_sent),
    .rx_drop_count_o(rx_drop_count), .cpl_drop_count_o(cpl_drop_count),
    .timeout_count_o(timeout_count)
  );

  // ---- the core: runs from the start pulse, takes instructions with stalls ------------------
  int taken = 0;
  int goal = NumInstr;  // instructions the program has
  int unsigned lfsr = 32'h1234_5678;

  always @(posedge clk) begin
    lfsr <= {lfsr[30:0], lfsr[31] ^ lfsr[21] ^ lfsr[1] ^ lfsr[0]};
    if (core_start) running <= 1'b1;
    if (core_soft_reset) running <= 1'b0;
    if (instr_valid && instr_ready) begin
      logic [63:0] a;
      a = RingBase + 64'(16 * taken);
      for (int b = 0; b < 16; b++) begin
        if (instr[8*b +: 8] != host_byte(a + 64'(b))) begin
          $display("ERROR: instruction %0d byte %0d = %h, expected %h", taken, b,
                   instr[8*b +: 8], host_byte(a + 64'(b)));
          errors++;
          break;
        end
      end
      taken <= taken + 1;
      if (taken + 1 == goal) running <= 1'b0;
    end
    if (core_soft_reset) taken <= 0;
    instr_ready <= lfsr[3:2] != 2'b00;
    if (rst_n && (cpl_drop_count != 0 || timeout_count != 0 || rx_drop_count != 0)) begin
      $display("ERROR: drops %0d / %0d, timeouts %0d", cpl_drop_count, rx_drop_count,
               timeout_count);
      errors++;
    end
  end

  // ---- host side --------------------------------------------------------------------------
  int total;

  task automatic expect_taken(int n, string when);
    if (taken != n) begin
      $display("ERROR: %0d instructions taken %s, %0d expected", taken, when, n); errors++;
    end
  endtask

  // CONTROL.soft_reset, then a program of `slots` instructions (the first `fails` MRds
  // answered UR), run for `cycles`.
  task automatic restart(int slots, int fails, int cycles);
    reg_write(12'h040, 32'h1);
    repeat (20) @(posedge clk);
    fail_reads = fails;
    goal = slots;
    reg_write(12'h090, 32'(slots));
    repeat (cycles) @(posedge clk);
  endtask

  initial begin
    repeat (4) @(posedge clk);
    rst_n <= 1'b1;
    @(posedge clk);
    enumerate();
    reg_write(12'h080, RingBase[31:0]);
    reg_write(12'h084, RingBase[63:32]);
    reg_write(12'h088, 32'd64);
    reg_write(12'h090, 32'd37);          // doorbell: starts the core
    repeat (300) @(posedge clk);
    reg_write(12'h090, 32'(NumInstr));   // more while it runs
    repeat (1500) @(posedge clk);
    expect_taken(NumInstr, "after two doorbells");
    total = taken;
    // A ring fetch that fails (UR), then a soft reset and the ring again from slot 0.
    restart(20, 1, 500);
    expect_taken(0, "after a failed fetch");
    if (fail_reads != 0) begin $display("ERROR: the ring fetched nothing"); errors++; end
    restart(30, 0, 800);
    expect_taken(30, "after the restart");
    total += taken;
    $display("TlpWidth %0d ring: %0d instructions checked, %0d MRds, %0d CplDs: %s", TlpWidth,
             total, mrds, cpls_sent, errors == 0 ? "PASS" : "FAIL");
    $finish;
  end
endmodule
