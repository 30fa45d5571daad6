// One spatial axis of a pooling walk, with TensorFlow's VALID / SAME arithmetic (as
// host_driver/golden/padding.cpp): the pooling unit steps through the in_i real positions of a
// line followed by the padding after them, and a window ends every stride_i steps starting at
// first_end_o.
//   VALID: no padding; the first window ends at window - 1.
//   SAME:  out = ceil(in / stride), pad_total = max((out - 1) * stride + window - in, 0)
//          = max(window - 1 - (in - 1) mod stride, 0), pad_before = pad_total / 2.
//          The pad_before positions need no step (no window ends there, as pad_before <
//          window); the first window ends at window - 1 - pad_before.
// The last window ends on the last step (SAME with padding) or before it (the rest of the
// line belongs to no window). Combinational, in two independent halves so that the pooling
// unit can register between them (together they were one FPGA clock's critical path): the
// remainder (rem_in_i, rem_stride_i -> rem_o) and the padding from it (the other ports, with
// rem_i = the rem_o of the same in_i and stride). The configuration is static during an image.
module tpu_act_pool_axis #(
  parameter int unsigned Width     = 8,  // bits of the sizes and of the step counts
  parameter int unsigned MaxStride = 4   // largest stride
) (
  // Remainder.
  input  logic [Width-1:0] rem_in_i,      // real positions along the axis, >= 1
  input  logic [Width-1:0] rem_stride_i,  // stride, >= 1
  output logic [Width-1:0] rem_o,         // (rem_in_i - 1) mod rem_stride_i
  // Padding.
  input  logic [Width-1:0] in_i,          // real positions along the axis, >= 1
  input  logic [Width-1:0] window_i,      // window size, >= 1
  input  logic             same_i,        // 1: SAME padding, 0: VALID
  input  logic [Width-1:0] rem_i,         // (in_i - 1) mod stride (rem_o, registered)
  output logic [Width-1:0] last_step_o,   // in_i + padding after the line, minus 1
  output logic [Width-1:0] first_end_o    // step (0 = first real position) of the first window's end
);

  localparam int unsigned RW = (MaxStride > 1) ? $clog2(MaxStride) : 1;  // remainder bits

  logic [Width-1:0] rem_last, last, pad_total, pad_before, pad_after;
  logic [RW-1:0]    r;
  logic [RW:0]      t;

  always_comb begin
    // rem = (in - 1) mod stride: long division by each constant legal stride, remainder only
    // (a few gates per bit, where a generic divider would cost hundreds).
    rem_last = rem_in_i - Width'(1);
    rem_o    = '0;
    r        = '0;
    t        = '0;
    for (int s = 2; s <= MaxStride; s++) begin
      r = '0;
      for (int i = Width - 1; i >= 0; i--) begin
        t = {r, rem_last[i]};
        if (t >= (RW + 1)'(s)) t = t - (RW + 1)'(s);
        r = t[RW-1:0];
      end
      if (rem_stride_i == Width'(s)) rem_o = Width'(r);
    end
  end

  always_comb begin
    last      = in_i - Width'(1);
    pad_total = '0;
    if (same_i && window_i > rem_i + Width'(1)) pad_total = window_i - Width'(1) - rem_i;
    pad_before  = pad_total >> 1;
    pad_after   = pad_total - pad_before;
    last_step_o = last + pad_after;  // (in - 1) + pad_after: no subtract after the add
    first_end_o = window_i - Width'(1) - pad_before;
  end

endmodule
