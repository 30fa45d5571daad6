// Shared part of the scratch smoke tests PLAN-wide-tlp-smoke_tb.sv and
// PLAN-wide-tlp-smoke_ring_tb.sv (working files of PLAN-wide-tlp.md, deleted with it): a tiny
// root complex, included inside a test module that declares clk, rst_n, the rx_* / tx_*
// stream signals and W, D, B (beat bits, DWs, bytes). It queues the beats of TLPs it sends on
// rx_*, answers every MRd on tx_* with CplDs split at 64-byte boundaries (or, while fail_reads
// > 0, with an Unsupported Request Cpl), applies MWrs to hostmem and checks the header beat's
// unused DWs, 3-DW headers, MRd alignment and MWr lengths.

  int errors = 0;
  int mrds = 0, mwrs = 0, cpls_sent = 0;
  bit verbose = 0;
  initial verbose = $test$plusargs("verbose");
  // +stress: the root complex takes a transmitted beat in 3 cycles of 4 and leaves a gap
  // before a received beat in 1 of 4 (the test may stall its own ports likewise).
  bit stress = 0;
  initial stress = $test$plusargs("stress");
  int unsigned rc_lfsr = 32'h0bad_cafe;
  logic tx_ready = 1'b1, rx_gap = 1'b0;
  always @(posedge clk) begin
    rc_lfsr  <= {rc_lfsr[30:0], rc_lfsr[31] ^ rc_lfsr[21] ^ rc_lfsr[1] ^ rc_lfsr[0]};
    tx_ready <= !stress || rc_lfsr[1:0] != 2'b00;
    rx_gap   <= stress && rc_lfsr[5:4] == 2'b00;
  end

  function automatic logic [7:0] host_byte(logic [63:0] a);
    return 8'(a * 7 + (a >> 8) + (a >> 32));
  endfunction

  function automatic logic [7:0] write_byte(logic [63:0] a);
    return 8'(a * 13 + 8'h5a);
  endfunction

  // ---- receive side: beats queued by the root complex --------------------------------------
  logic [W+1:0] rxq[$];

  task automatic push_tlp(logic [31:0] hdr[], logic [31:0] pay[]);
    logic [W-1:0] beat;
    beat = '0;
    for (int d = 0; d < hdr.size(); d++) beat[32*d +: 32] = hdr[d];
    rxq.push_back({1'b1, pay.size() == 0, beat});
    for (int d = 0; d < pay.size(); d += D) begin
      beat = '0;
      for (int e = 0; e < D && d + e < pay.size(); e++) beat[32*e +: 32] = pay[d + e];
      rxq.push_back({1'b0, d + D >= pay.size(), beat});
    end
  endtask

  always @(posedge clk) begin
    if (!rx_valid || rx_ready) begin
      if (rxq.size() > 0 && !rx_gap) begin
        logic [W+1:0] f;
        f = rxq.pop_front();
        rx_sop   <= f[W+1];
        rx_eop   <= f[W];
        rx_data  <= f[W-1:0];
        rx_valid <= 1'b1;
      end else begin
        rx_valid <= 1'b0;
      end
    end
  end

  // ---- transmit side: the root complex takes every TLP -------------------------------------
  logic [7:0]   hostmem [logic [63:0]];
  logic [31:0]  txdw[$];

  int fail_reads = 0;  // MRds still to answer with an Unsupported Request completion

  task automatic answer_mrd(logic [63:0] addr, int dws, logic [7:0] tag);
    int bytes, off;
    bytes = dws * 4;
    off = 0;
    if (fail_reads > 0) begin
      logic [31:0] hdr[], pay[];
      hdr = new[3];
      pay = new[0];
      hdr[0] = {3'b000, 5'b01010, 14'h0, 10'd0};
      hdr[1] = {16'h0000, 3'b001, 1'b0, 12'(bytes)};
      hdr[2] = {16'h0100, tag, 1'b0, addr[6:0]};
      push_tlp(hdr, pay);
      fail_reads--;
      return;
    end
    while (off < bytes) begin
      logic [63:0] a;
      int chunk;
      logic [31:0] hdr[], pay[];
      a = addr + 64'(off);
      chunk = 64 - int'(a[5:0]);
      if (chunk > bytes - off) chunk = bytes - off;
      hdr = new[3];
      pay = new[chunk / 4];
      hdr[0] = {3'b010, 5'b01010, 14'h0, 10'(chunk / 4)};
      hdr[1] = {16'h0000, 3'b000, 1'b0, 12'(bytes - off)};
      hdr[2] = {16'h0100, tag, 1'b0, a[6:0]};
      for (int d = 0; d < chunk / 4; d++) begin
        for (int b = 0; b < 4; b++) pay[d][8*b +: 8] = host_byte(a + 64'(4 * d + b));
      end
      push_tlp(hdr, pay);
      cpls_sent++;
      off += chunk;
    end
  endtask

  always @(posedge clk) begin
    if (rst_n && tx_valid && tx_ready) begin
      if (tx_sop && txdw.size() != 0) begin
        $display("ERROR: sop inside a TLP"); errors++;
      end
      if (tx_sop) txdw.delete();
      if (tx_sop) begin
        for (int d = 0; d < 4; d++) txdw.push_back(tx_data[32*d +: 32]);
        for (int d = 4; d < D; d++) begin
          if (tx_data[32*d +: 32] != 0) begin
            $display("ERROR: header beat DW%0d = %h", d, tx_data[32*d +: 32]); errors++;
          end
        end
      end else begin
        for (int d = 0; d < D; d++) txdw.push_back(tx_data[32*d +: 32]);
      end
      if (tx_eop) begin
        logic [2:0] fmt;
        logic [4:0] typ;
        int len, hdw, pbeats;
        logic [63:0] addr;
        fmt = txdw[0][31:29];
        typ = txdw[0][28:24];
        len = (txdw[0][9:0] == 0) ? 1024 : int'(txdw[0][9:0]);
        hdw = fmt[0] ? 4 : 3;
        addr = fmt[0] ? {txdw[2], txdw[3]} : {32'h0, txdw[2]};
        if (!fmt[0] && txdw[3] != 0) begin
          $display("ERROR: 3-DW header with DW3 %h", txdw[3]); errors++;
        end
        pbeats = (txdw.size() - 4) / D;
        if (typ == 5'b00000 && !fmt[1]) begin
          mrds++;
          if (verbose) $display("%0t: MRd %h %0d DWs tag %0d", $time, addr, len, txdw[1][15:8]);
          if (pbeats != 0) begin $display("ERROR: MRd with payload"); errors++; end
          if (addr % B != 0) begin $display("ERROR: MRd address %h", addr); errors++; end
          answer_mrd(addr, len, txdw[1][15:8]);
        end else if (typ == 5'b00000 && fmt[1]) begin
          logic [3:0] fbe, lbe;
          mwrs++;
          fbe = txdw[1][3:0];
          lbe = txdw[1][7:4];
          if (verbose) $display("MWr %h %0d DWs BE %b/%b", addr, len, fbe, lbe);
          if (pbeats != (len + D - 1) / D) begin
            $display("ERROR: MWr of %0d DWs in %0d beats", len, pbeats); errors++;
          end
          for (int d = 0; d < len; d++) begin
            logic [3:0] be;
            be = (d == 0) ? fbe : (d == len - 1) ? lbe : 4'hf;
            for (int b = 0; b < 4; b++) begin
              if (be[b]) hostmem[addr + 64'(4 * d + b)] = txdw[4 + d][8*b +: 8];
            end
          end
          for (int d = len; d < pbeats * D; d++) begin
            if (txdw[4 + d] != 0) begin
              $display("ERROR: MWr DW %0d past the length is %h", d, txdw[4 + d]); errors++;
            end
          end
        end
        txdw.delete();
      end
    end
  end

  // A one-DW write TLP (configuration or BAR0 write) from its header DWs 0 and 2.
  task automatic one_dw_write(logic [31:0] dw0, logic [31:0] dw2, logic [31:0] value);
    logic [31:0] hdr[], pay[];
    hdr = new[3];
    pay = new[1];
    hdr[0] = dw0;
    hdr[1] = {16'h0000, 8'd1, 4'b0000, 4'b1111};
    hdr[2] = dw2;
    pay[0] = value;
    push_tlp(hdr, pay);
  endtask

  task automatic cfg_write(logic [9:0] regno, logic [31:0] value);
    one_dw_write({3'b010, 5'b00100, 14'h0, 10'd1}, {16'h0100, 4'h0, regno, 2'b00}, value);
  endtask

  task automatic reg_write(logic [11:0] offset, logic [31:0] value);
    one_dw_write({3'b010, 5'b00000, 14'h0, 10'd1}, {20'hfe000, offset}, value);
  endtask

  // Enumeration as the project's root complexes do it: MPS 256, MRRS 512, memory and bus
  // master enabled.
  task automatic enumerate();
    cfg_write(10'h012, 32'h0000_2020);  // Device Control: MPS 256, MRRS 512
    cfg_write(10'h001, 32'h0000_0006);  // Command: Memory Space and Bus Master Enable
  endtask
