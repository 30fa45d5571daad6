`include "tpu_assert.svh"
// Dependency tokens (docs/isa.md, "Dependencies"): NumTokens counters of 0 .. TokenMax, shared by
// NumPorts requesters (port 0 the dispatcher for SYNC, then the dma, weights, matrix and
// activation units, see docs/controller.md).
//
// Take (consume): port p offers take_valid_i[p] with a mask; it is granted in the same cycle
// (take_grant_o[p], combinational) when every token of its mask has a counter > 0 after the takes
// granted to the ports before it (fixed priority, port 0 first), and then all of its tokens are
// decremented at the clock edge, all at once; otherwise nothing of it is taken and it may try
// again. An empty mask is granted at once. Takes see the counters as they were at the start of
// the cycle: a give of the same cycle becomes takeable in the next one.
//
// Give (produce): port p pulses give_valid_i[p] with a mask; each token of the mask is
// incremented at the edge. Gives of one cycle add up. A counter that would pass TokenMax stays at
// TokenMax and overflow_o is raised in that cycle (the controller turns it into TOKEN_OVERFLOW).
//
// clear_i (queue start) zeroes every counter and wins over takes and gives of its cycle.
// Latency: counters change at the edge after the take or give; counts_o and avail_o are
// registered.
module tpu_ctrl_tokens #(
  parameter int unsigned NumTokens = tpu_isa_pkg::NumTokens,  // token counters
  parameter int unsigned NumPorts  = 5,                       // takers and givers
  parameter int unsigned TokenMax  = tpu_isa_pkg::TokenMax,   // largest counter value
  localparam int unsigned CntWidth = $clog2(TokenMax + 1)      // bits of one counter
) (
  input  logic                           clk_i,
  input  logic                           rst_ni,
  input  logic                           clear_i,       // zero every counter
  // Takes.
  input  logic [NumPorts-1:0]            take_valid_i,  // port p wants its mask's tokens
  input  logic [NumPorts*NumTokens-1:0]  take_mask_i,   // port p's mask at [p*NumTokens +:]
  output logic [NumPorts-1:0]            take_grant_o,  // ... and gets them this cycle
  // Gives.
  input  logic [NumPorts-1:0]            give_valid_i,  // port p signals its mask's tokens
  input  logic [NumPorts*NumTokens-1:0]  give_mask_i,   // port p's mask at [p*NumTokens +:]
  // Status.
  output logic [NumTokens*CntWidth-1:0]  counts_o,      // counter t at [t*CntWidth +:]
  output logic [NumTokens-1:0]           avail_o,       // counter t > 0
  output logic                           overflow_o     // a give passed TokenMax this cycle
);

  // Structure (the logic-depth budget, docs/fpga.md): the takes are a chain of NumPorts
  // ports, so each step is kept to one grant and one shift. Per token, a thermometer code of
  // what is left ("left >= k", k = 1 .. NumPorts, compared from cnt_q alone) shifts down by one
  // per granted take, and a one-hot count of the takes so far shifts up with it; no counter is
  // subtracted inside the chain. The new value and its overflow are chosen by that one-hot
  // count among NumPorts + 1 candidates (counter + gives - j, j takes) that depend only on
  // cnt_q and the gives, so they are ready before the chain ends.
  // Sums below need room for TokenMax + NumPorts.
  localparam int unsigned SumWidth = CntWidth + $clog2(NumPorts + 1) + 1;

  logic [NumTokens*CntWidth-1:0]     cnt_d, cnt_q;
  logic [NumTokens*NumPorts-1:0]     left_ge;  // token t: bit k-1 = what is left >= k
  logic [NumTokens*(NumPorts+1)-1:0] taken;    // token t: bit j = j takes granted so far
  logic [NumTokens*SumWidth-1:0]     added;    // gives of this cycle per token
  logic [NumPorts-1:0]               grant;
  logic [NumTokens-1:0]              ovf;

  // Takes, in priority order: each port sees what the ports before it left.
  always_comb begin
    grant = '0;
    for (int unsigned t = 0; t < NumTokens; t++) begin
      for (int unsigned k = 1; k <= NumPorts; k++) begin
        left_ge[t*NumPorts + k - 1] = 32'(cnt_q[t*CntWidth +: CntWidth]) >= k;
      end
      taken[t*(NumPorts+1) +: NumPorts+1] = (NumPorts+1)'(1);
    end
    for (int unsigned p = 0; p < NumPorts; p++) begin
      grant[p] = take_valid_i[p];
      for (int unsigned t = 0; t < NumTokens; t++) begin
        if (take_mask_i[p*NumTokens + t] && !left_ge[t*NumPorts]) grant[p] = 1'b0;
      end
      for (int unsigned t = 0; t < NumTokens; t++) begin
        if (grant[p] && take_mask_i[p*NumTokens + t]) begin
          left_ge[t*NumPorts +: NumPorts] = left_ge[t*NumPorts +: NumPorts] >> 1;
          taken[t*(NumPorts+1) +: NumPorts+1] = taken[t*(NumPorts+1) +: NumPorts+1] << 1;
        end
      end
    end
  end

  // Gives, saturating at TokenMax.
  always_comb begin
    added = '0;
    for (int unsigned p = 0; p < NumPorts; p++) begin
      for (int unsigned t = 0; t < NumTokens; t++) begin
        if (give_valid_i[p] && give_mask_i[p*NumTokens + t]) begin
          added[t*SumWidth +: SumWidth] = added[t*SumWidth +: SumWidth] + SumWidth'(1);
        end
      end
    end
    for (int unsigned t = 0; t < NumTokens; t++) begin
      logic [SumWidth-1:0] gained;  // counter + gives
      logic [CntWidth-1:0] cand;    // counter + gives - j for the j takes granted
      logic                cand_ovf;
      gained   = SumWidth'(cnt_q[t*CntWidth +: CntWidth]) + added[t*SumWidth +: SumWidth];
      cand     = '0;
      cand_ovf = 1'b0;
      // j takes are granted only from a counter >= j, so gained - j does not wrap.
      for (int unsigned j = 0; j <= NumPorts; j++) begin
        if (taken[t*(NumPorts+1) + j]) begin
          cand     = cand | CntWidth'(gained - SumWidth'(j));
          cand_ovf = cand_ovf | (gained > SumWidth'(TokenMax + j));
        end
      end
      ovf[t] = cand_ovf;
      cnt_d[t*CntWidth +: CntWidth] = clear_i ? '0 : ovf[t] ? CntWidth'(TokenMax) : cand;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cnt_q <= '0;
    end else begin
      cnt_q <= cnt_d;
    end
  end

  assign take_grant_o = grant;
  assign counts_o     = cnt_q;
  assign overflow_o   = !clear_i && (ovf != '0);
  for (genvar t = 0; t < NumTokens; t++) begin : g_avail
    assign avail_o[t] = cnt_q[t*CntWidth +: CntWidth] != '0;
  end

  `TPU_ASSERT_INIT(TokenMaxFits, TokenMax >= 1)
  // Only requested takes are granted.
  `TPU_ASSERT(GrantOnlyRequested, (take_grant_o & ~take_valid_i) == '0, clk_i, rst_ni)

endmodule
