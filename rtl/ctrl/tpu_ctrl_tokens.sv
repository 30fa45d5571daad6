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

  // Sums below need room for TokenMax + NumPorts.
  localparam int unsigned SumWidth = CntWidth + $clog2(NumPorts + 1) + 1;

  logic [NumTokens*CntWidth-1:0] cnt_d, cnt_q;
  logic [NumTokens*SumWidth-1:0] left;   // counter minus the takes granted so far
  logic [NumTokens*SumWidth-1:0] added;  // gives of this cycle per token
  logic [NumTokens*SumWidth-1:0] next;   // left + added
  logic [NumPorts-1:0]           grant;
  logic [NumTokens-1:0]          ovf;

  // Takes, in priority order: each port sees what the ports before it left.
  always_comb begin
    grant = '0;
    for (int unsigned t = 0; t < NumTokens; t++) begin
      left[t*SumWidth +: SumWidth] = SumWidth'(cnt_q[t*CntWidth +: CntWidth]);
    end
    for (int unsigned p = 0; p < NumPorts; p++) begin
      grant[p] = take_valid_i[p];
      for (int unsigned t = 0; t < NumTokens; t++) begin
        if (take_mask_i[p*NumTokens + t] && (left[t*SumWidth +: SumWidth] == '0)) begin
          grant[p] = 1'b0;
        end
      end
      for (int unsigned t = 0; t < NumTokens; t++) begin
        if (grant[p] && take_mask_i[p*NumTokens + t]) begin
          left[t*SumWidth +: SumWidth] = left[t*SumWidth +: SumWidth] - SumWidth'(1);
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
      next[t*SumWidth +: SumWidth] = left[t*SumWidth +: SumWidth] + added[t*SumWidth +: SumWidth];
      ovf[t] = next[t*SumWidth +: SumWidth] > SumWidth'(TokenMax);
      cnt_d[t*CntWidth +: CntWidth] = clear_i ? '0 :
          ovf[t] ? CntWidth'(TokenMax) : next[t*SumWidth +: CntWidth];
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
