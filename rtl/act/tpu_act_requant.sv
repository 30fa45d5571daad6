`include "tpu_assert.svh"

// Arithmetic stage of the activation pipeline: turns accumulator rows (N x int32, lane c =
// output channel c) into int8 rows for the unified buffer, with TensorFlow Lite's integer
// semantics, bit-exact with host_driver/golden (requant.h, activation.h). Per element c:
//   y = clamp(zp + MultiplyByQuantizedMultiplier(acc + bias[c], M0[c], shift[c]),
//             act_min, act_max)
//   out = lut_enable ? lut[y + 128] : y
// bias add and x * 2^shift wrap in int32 like TFLite; the zero-point add is exact, so values
// near INT32_MAX/MIN saturate at the clamp. (M0, shift) are per channel; for per-tensor
// quantization the driver writes the same pair into every lane. None/ReLU/ReLU6 are clamp
// bounds the driver computes (golden QuantizedActivationRange); other functions use the
// 256-entry table, loaded through the lut_we_i port, one entry per cycle, only while no row is
// in flight (busy_o low and no row offered; asserted). The configuration is held stable by the
// controller for a whole pass: from the first row's acceptance until busy_o falls (asserted).
//
// Pipeline, one row per cycle, valid/ready on both sides:
//   stage 1  bias add                          stage 5  SRDHM rounding, rounding right shift
//   stage 2  left shift, 32 x 32 multiply      stage 6  zero-point add, clamp
//   stage 3  the product's add                 stage 7  lookup table (or bypass), output
//   stage 4  saturation, rounding constant
// Latency 7: a row accepted in cycle t (in_valid_i && in_ready_o) is offered on out_row_o from
// cycle t + 7 on, if the output was not stalled. Every stage has its own enable and a stage
// whose successor is full stalls, so bubbles are squeezed out and a stall on out_ready_i loses
// nothing; throughput is one row per cycle while out_ready_i is high. in_ready_o depends
// combinationally on out_ready_i (through one AND-OR per stage).
module tpu_act_requant #(
  parameter int unsigned N          = tpu_pkg::MxuDim,        // channels per row
  parameter int unsigned TagWidth   = tpu_pkg::ActTagWidth,   // user bits carried with a row
  parameter int unsigned ShiftWidth = tpu_pkg::ActShiftWidth  // bits of a shift (must be 6)
) (
  input  logic                                clk_i,
  input  logic                                rst_ni,
  // Configuration, stable for a pass. Lane c of each vector configures output channel c.
  input  logic [N*32-1:0]                     bias_i,            // int32 bias at c*32
  input  logic [N*32-1:0]                     multiplier_i,      // int32 M0 (Q0.31) at c*32
  input  logic [N*ShiftWidth-1:0]             shift_i,           // signed, at c*6, [-31, 30]
  input  logic [7:0]                          out_zero_point_i,  // int8 output zero point
  input  logic [7:0]                          act_min_i,         // int8 clamp minimum
  input  logic [7:0]                          act_max_i,         // int8 clamp max, >= minimum
  input  logic                                lut_enable_i,      // clamped values -> table
  // Lookup-table load port: entry lut_addr_i holds the output for input code lut_addr_i - 128.
  input  logic                                lut_we_i,          // write one entry this cycle
  input  logic [7:0]                          lut_addr_i,        // entry index
  input  logic [7:0]                          lut_data_i,        // int8 entry value
  // Accumulator rows in.
  input  logic                                in_valid_i,        // in_row_i holds a row
  output logic                                in_ready_o,        // ... and is taken this cycle
  input  logic [N*32-1:0]                     in_row_i,          // int32 of channel c at c*32
  input  logic [TagWidth-1:0]                 in_tag_i,          // returned with the row
  // int8 rows out.
  output logic                                out_valid_o,       // out_row_o holds a result
  input  logic                                out_ready_i,       // ... and the consumer takes it
  output logic [N*8-1:0]                      out_row_o,         // int8 of channel c at c*8
  output logic [TagWidth-1:0]                 out_tag_o,         // the row's in_tag_i
  // Status.
  output logic                                busy_o             // a row is in the pipeline
);

  localparam int unsigned Stages = 7;

  // ---------------------------------------------------------------------------------------
  // Handshake: stage s (1..Stages) holds a row when valid_q[s]. It may load when it is empty
  // or its row moves on in the same cycle (advance[s]); advance[Stages + 1] is the consumer.
  // ---------------------------------------------------------------------------------------
  logic [Stages:1]   valid_q, valid_d;
  logic [Stages+1:1] advance;
  logic [Stages:1]   load;      // stage s takes a valid row from stage s - 1 (0 = input)
  logic [Stages-1:0] feed;      // valid bits entering each stage: {valid_q[Stages-1:1], in}

  // The ready chain alone in its process: in_ready_o must not depend on in_valid_i, also not
  // through a shared process (a false loop for Verilator when the producer's valid depends on
  // other outputs of ours).
  always_comb begin
    advance[Stages+1] = out_ready_i;
    for (int s = Stages; s >= 1; s--) advance[s] = !valid_q[s] || advance[s+1];
  end

  always_comb begin
    feed = {valid_q[Stages-1:1], in_valid_i};
    for (int s = 1; s <= Stages; s++) begin
      load[s]    = advance[s] && feed[s-1];
      valid_d[s] = advance[s] ? feed[s-1] : valid_q[s];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) valid_q <= '0;
    else         valid_q <= valid_d;
  end

  assign in_ready_o  = advance[1];
  assign out_valid_o = valid_q[Stages];
  assign busy_o      = |valid_q;

  // ---------------------------------------------------------------------------------------
  // Stages 1-6: one datapath per channel
  // ---------------------------------------------------------------------------------------
  logic [N*8-1:0] clamped;  // stage 6 result of every channel

  for (genvar c = 0; c < N; c++) begin : g_lane
    tpu_act_requant_lane u_lane (
      .clk_i           (clk_i),
      .en_i            (load[6:1]),
      .acc_i           (in_row_i[c*32 +: 32]),
      .bias_i          (bias_i[c*32 +: 32]),
      .multiplier_i    (multiplier_i[c*32 +: 32]),
      .shift_i         (shift_i[c*ShiftWidth +: ShiftWidth]),
      .out_zero_point_i(out_zero_point_i),
      .act_min_i       (act_min_i),
      .act_max_i       (act_max_i),
      .y_o             (clamped[c*8 +: 8])
    );
  end

  // ---------------------------------------------------------------------------------------
  // Stage 7: lookup table or bypass, into the output registers. The table's read is registered
  // (a block RAM's, tpu_act_lut) and loads with the stage, beside a register of the bypass value
  // and one of the choice: the output is the same value in the same cycle as one register of
  // lut_enable_i ? lut[y] : y would hold.
  // ---------------------------------------------------------------------------------------
  logic [N*8-1:0] looked_up_q7, clamped_q7;
  logic           lut_enable_q7;

  tpu_act_lut #(
    .Ports(N)
  ) u_lut (
    .clk_i  (clk_i),
    .we_i   (lut_we_i),
    .waddr_i(lut_addr_i),
    .wdata_i(lut_data_i),
    .re_i   (load[7]),
    .x_i    (clamped),
    .y_o    (looked_up_q7)
  );

  always_ff @(posedge clk_i) begin
    if (load[7]) begin
      clamped_q7    <= clamped;
      lut_enable_q7 <= lut_enable_i;
    end
  end

  assign out_row_o = lut_enable_q7 ? looked_up_q7 : clamped_q7;

  // ---------------------------------------------------------------------------------------
  // Tags travel with their rows, one register per stage.
  // ---------------------------------------------------------------------------------------
  logic [TagWidth-1:0] tag_q [Stages];  // tag_q[s - 1] belongs to stage s

  for (genvar s = 0; s < Stages; s++) begin : g_tag
    if (s == 0) begin : g_first
      always_ff @(posedge clk_i) begin
        if (load[1]) tag_q[0] <= in_tag_i;
      end
    end else begin : g_next
      always_ff @(posedge clk_i) begin
        if (load[s+1]) tag_q[s] <= tag_q[s-1];
      end
    end
  end

  assign out_tag_o = tag_q[Stages-1];

  // ---------------------------------------------------------------------------------------
  // Assertions
  // ---------------------------------------------------------------------------------------
`ifndef SYNTHESIS
  // Rows that still use the configuration: offered, or in stages 1-6 (stage 7 is done).
  logic rows_pending, shift_in_range;
  logic [N*(64+ShiftWidth)+25-1:0] config_bits;

  always_comb begin
    rows_pending   = in_valid_i || (|valid_q[Stages-1:1]);
    shift_in_range = 1'b1;
    for (int c = 0; c < N; c++) begin
      // 6-bit signed: -32 and 31 are outside TFLite's [-31, 30].
      if (shift_i[c*ShiftWidth +: ShiftWidth] == {1'b1, {(ShiftWidth-1){1'b0}}} ||
          shift_i[c*ShiftWidth +: ShiftWidth] == {1'b0, {(ShiftWidth-1){1'b1}}}) begin
        shift_in_range = 1'b0;
      end
    end
    config_bits = {bias_i, multiplier_i, shift_i, out_zero_point_i, act_min_i, act_max_i,
                   lut_enable_i};
  end
`endif
  `TPU_STABLE(config_stable, config_bits, clk_i)
  `TPU_STABLE(out_row_stable, out_row_o, clk_i)

  `TPU_ASSERT_INIT(ShiftWidthIsSix, ShiftWidth == 6)  // the lanes decode a 6-bit shift
  `TPU_ASSERT(NoXOnHandshake, !$isunknown(in_valid_i) && !$isunknown(out_ready_i) &&
              !$isunknown(lut_we_i), clk_i, rst_ni)
  `TPU_ASSERT(LutLoadOnlyWhenIdle, !(lut_we_i && rows_pending), clk_i, rst_ni)
  `TPU_ASSERT(ShiftInRange, !in_valid_i || shift_in_range, clk_i, rst_ni)
  `TPU_ASSERT(ClampBoundsOrdered, !in_valid_i || $signed(act_min_i) <= $signed(act_max_i),
              clk_i, rst_ni)
  `TPU_ASSERT(ConfigStableInFlight, !(|valid_q[Stages-1:1]) || config_stable,
              clk_i, rst_ni)
  // A stalled row stays on the output, unchanged, until it is taken.
  `TPU_ASSERT(OutputHeldUntilTaken, !$past(out_valid_o && !out_ready_i) ||
              (out_valid_o && out_row_stable && $stable(out_tag_o)), clk_i, rst_ni)

endmodule
