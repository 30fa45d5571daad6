`include "tpu_assert.svh"

// Pooling unit, the last stage of the activation pipeline: max or average pooling of an int8
// NHWC image, or bypass.
//
// Input rows are pixels: N int8 channels (lane c = channel c) of an in_h x in_w image, in raster
// order (h major, then w). Output rows are the pooled pixels in raster order, with borders as
// TensorFlow / TFLite (host_driver/golden/pool.cpp): VALID or SAME padding, padded positions
// excluded from the max and from the average's count, the average rounded half away from zero,
// then clamped to [act_min, act_max]. Bypass passes every row through unchanged (no clamp,
// image sizes ignored).
//
// Separable datapath:
//  - a sequencer walks each image row by row over its real pixels plus the padding positions
//    after each row and after the last row (SAME only); padding positions take one cycle each
//    and consume no input (no padding step is needed before a row or above the first row);
//  - horizontal: a shift register holds the last MaxWindow pixels of the row; when a step ends
//    a window column (every stride_w steps), it yields the window's per-lane max or sum
//    (stage 1);
//  - vertical: that horizontal result is written to line buffer (row mod MaxWindow) at the
//    output column, and when the row also ends a window row, the results of the window's
//    earlier rows are read from the other line buffers (stage 1 -> 2) and combined with it
//    by a tree whose first level is stage 2 -> 3 and whose others are stage 3 -> 4; rows and
//    columns outside the image are masked out and counted out;
//  - the average divides by the window's element count (tpu_act_pool_div, stage 4 -> 5), then
//    the clamp (stage 5 -> output register). The count is known in stage 2, so the divider's
//    reciprocal of it is prepared there and travels with the window's result: stage 4 keeps
//    only a multiply (the divide in one stage alone was 94 gate levels, over the budget of
//    docs/fpga.md), and the clamp has a stage of its own (the multiply and the clamp in one
//    cycle limited the activation pipeline's clock on an FPGA, as did the whole vertical tree).
// Latency: an output row is valid 6 cycles after the step that ends its window (an accepted
// input row, or a padding position). Throughput: one step per cycle. Every input row is a step;
// so is every padding position after a row (SAME: at most MaxWindow - 1 per row) and every
// position of the padding rows after the image (at most MaxWindow - 1 rows); VALID images have
// no padding steps and stream back to back at one row per cycle. At most one output row per
// cycle. Every stage is a valid/ready register that fills bubbles, so an output stall stops the
// input only once the stages are full, and nothing is lost; in_ready_o depends combinationally
// on out_ready_i through the stages' ready chain. The configuration is registered (with what
// the sequencer derives from it) every cycle and read from those registers: it must be stable
// from two cycles before an image's first row is offered until busy_o falls (it may change
// only while the unit is idle, at least two cycles before the next image).
//
// Each output row carries the tag of the last input row accepted before it was produced (the
// input row that completed its window, or the image's last row for windows ending on padding).
module tpu_act_pool #(
  parameter int unsigned N         = tpu_pkg::MxuDim,         // lanes (channels) per row
  parameter int unsigned MaxWidth  = tpu_pkg::PoolMaxWidth,   // largest in_w: line-buffer depth
  parameter int unsigned MaxHeight = tpu_pkg::PoolMaxHeight,  // largest in_h
  parameter int unsigned MaxWindow = tpu_pkg::PoolMaxWindow,  // largest window_h, window_w
  parameter int unsigned MaxStride = tpu_pkg::PoolMaxStride,  // largest stride_h, stride_w
  parameter int unsigned TagWidth  = 16,                      // user bits carried with rows
  parameter int unsigned DimWidth  = tpu_pkg::PoolDimWidth,   // bits of cfg_in_h_i, cfg_in_w_i
  parameter int unsigned WinWidth  = tpu_pkg::PoolWinWidth    // bits of window, stride fields
) (
  input  logic                             clk_i,
  input  logic                             rst_ni,
  // Configuration, static for a whole image (held while busy_o).
  input  logic [1:0]                       cfg_mode_i,      // PoolMode*
  input  logic [DimWidth-1:0]              cfg_in_h_i,      // image height, 1..MaxHeight
  input  logic [DimWidth-1:0]              cfg_in_w_i,      // image width, 1..MaxWidth
  input  logic [WinWidth-1:0]              cfg_window_h_i,  // window height, 1..MaxWindow
  input  logic [WinWidth-1:0]              cfg_window_w_i,  // window width, 1..MaxWindow
  input  logic [WinWidth-1:0]              cfg_stride_h_i,  // vertical stride, 1..MaxStride
  input  logic [WinWidth-1:0]              cfg_stride_w_i,  // horizontal stride, 1..MaxStride
  input  logic                             cfg_same_i,      // 1: SAME padding, 0: VALID
  input  logic signed [7:0]                cfg_act_min_i,   // clamp of the pooled value
  input  logic signed [7:0]                cfg_act_max_i,   // ... act_min <= act_max
  // Input pixels.
  input  logic                             in_valid_i,      // in_row_i holds a pixel
  output logic                             in_ready_o,      // ... and is taken this cycle
  input  logic [N*8-1:0]                   in_row_i,        // int8 channel c at c*8
  input  logic [TagWidth-1:0]              in_tag_i,        // returned with the output rows
  // Output pixels.
  output logic                             out_valid_o,     // out_row_o holds a pixel
  input  logic                             out_ready_i,     // ... and is taken this cycle
  output logic [N*8-1:0]                   out_row_o,       // int8 channel c at c*8
  output logic [TagWidth-1:0]              out_tag_o,       // see the header
  // Status.
  output logic                             busy_o           // an image or rows are in flight
);

  // Mode encodings (local copies: Verilator lints package constants used in a body as unused).
  localparam logic [1:0] PoolModeBypass = tpu_pkg::PoolModeBypass;
  localparam logic [1:0] PoolModeMax    = tpu_pkg::PoolModeMax;
  localparam logic [1:0] PoolModeAvg    = tpu_pkg::PoolModeAvg;

  localparam int unsigned XW = $clog2(MaxWidth + MaxWindow + MaxStride + 1);   // column steps
  localparam int unsigned YW = $clog2(MaxHeight + MaxWindow + MaxStride + 1);  // row steps
  localparam int unsigned AW = $clog2(MaxWidth);                 // output column (LB address)
  localparam int unsigned PW = $clog2(MaxWindow);                // line buffer index
  localparam int unsigned PW1 = PW + 1;                          // ... and a carry bit
  localparam int unsigned KW = $clog2(MaxWindow + 1);            // window size, rows or columns
  localparam int unsigned CW = $clog2(MaxWindow * MaxWindow + 1);  // window element count
  localparam int unsigned HW = 8 + $clog2(MaxWindow);              // horizontal sum (or max)
  localparam int unsigned SW = 8 + $clog2(MaxWindow * MaxWindow);  // window sum (or max)
  // The divider's reciprocal of the count (tpu_act_pool_div's RecipWidth).
  localparam int unsigned RW = 3 * (2 * SW + $clog2(MaxWindow * MaxWindow) + 3);

  // ---------------------------------------------------------------------------------------
  // Configuration registers: the configuration inputs as given (with the axes' remainders),
  // then what the sequencer derives from them (the axes' VALID / SAME arithmetic), both
  // registered every cycle, so that the derivation takes two cycles of its own, off the
  // sequencer's paths (from the configuration inputs into the position counters it was the
  // activation pipeline's critical path on an FPGA, docs/fpga.md; in one cycle between
  // registers it was again). The inputs must therefore be stable from two cycles before an
  // image's first row is offered (see the header). Bypass runs as a 1x1 max pooling of 1x1
  // images, without the clamp.
  // ---------------------------------------------------------------------------------------
  logic [XW-1:0]       rem_x_d, rem_x_c;  // the axes' (in - 1) mod stride
  logic [YW-1:0]       rem_y_d, rem_y_c;
  logic [1:0]          mode_c;
  logic [YW-1:0]       in_h_c;  // the bits the sequencer reads
  logic [XW-1:0]       in_w_c;
  logic [WinWidth-1:0] window_h_c, window_w_c, stride_h_c, stride_w_c;
  logic                same_c;
  logic signed [7:0]   act_min_c, act_max_c;

  // No reset: loaded every cycle, and read only once an image starts.
  always_ff @(posedge clk_i) begin
    mode_c     <= cfg_mode_i;
    in_h_c     <= YW'(cfg_in_h_i);
    in_w_c     <= XW'(cfg_in_w_i);
    window_h_c <= cfg_window_h_i;
    window_w_c <= cfg_window_w_i;
    stride_h_c <= cfg_stride_h_i;
    stride_w_c <= cfg_stride_w_i;
    same_c     <= cfg_same_i;
    act_min_c  <= cfg_act_min_i;
    act_max_c  <= cfg_act_max_i;
    rem_x_c    <= rem_x_d;
    rem_y_c    <= rem_y_d;
  end

  logic          bypass_d, is_avg_d;
  logic [XW-1:0] last_x_d, first_x_d;
  logic [YW-1:0] last_y_d, first_y_d;

  always_comb begin
    bypass_d = mode_c == PoolModeBypass;
    is_avg_d = mode_c == PoolModeAvg;
  end

  // The axes: the remainders from the configuration inputs, the padding from the registered
  // configuration; bypass (a 1x1 image, window and stride: last step and first window end 0)
  // is chosen after them, at the register.
  tpu_act_pool_axis #(
    .Width    (XW),
    .MaxStride(MaxStride)
  ) u_axis_x (
    .rem_in_i    (XW'(cfg_in_w_i)),
    .rem_stride_i(XW'(cfg_stride_w_i)),
    .rem_o       (rem_x_d),
    .in_i        (in_w_c),
    .window_i    (XW'(window_w_c)),
    .same_i      (same_c),
    .rem_i       (rem_x_c),
    .last_step_o (last_x_d),
    .first_end_o (first_x_d)
  );

  tpu_act_pool_axis #(
    .Width    (YW),
    .MaxStride(MaxStride)
  ) u_axis_y (
    .rem_in_i    (YW'(cfg_in_h_i)),
    .rem_stride_i(YW'(cfg_stride_h_i)),
    .rem_o       (rem_y_d),
    .in_i        (in_h_c),
    .window_i    (YW'(window_h_c)),
    .same_i      (same_c),
    .rem_i       (rem_y_c),
    .last_step_o (last_y_d),
    .first_end_o (first_y_d)
  );

  // Registered: the last step of a row and of an image, and the clamp bounds as
  // the output stage uses them (act_lo: act_min, or act_max if act_min > act_max).
  logic              bypass, is_avg;
  logic [XW-1:0]     in_w, str_w, last_x, first_x;
  logic [YW-1:0]     in_h, str_h, last_y, first_y;
  logic [KW-1:0]     win_h_k;
  logic [MaxWindow-1:0] win_w_cols;  // bit k: column k of the window is inside it (k < window_w)
  logic signed [7:0] act_lo, act_hi;

  always_ff @(posedge clk_i) begin
    bypass  <= bypass_d;
    is_avg  <= is_avg_d;
    in_w    <= bypass_d ? XW'(1) : in_w_c;
    str_w   <= bypass_d ? XW'(1) : XW'(stride_w_c);
    last_x  <= bypass_d ? '0 : last_x_d;
    first_x <= bypass_d ? '0 : first_x_d;
    in_h    <= bypass_d ? YW'(1) : in_h_c;
    str_h   <= bypass_d ? YW'(1) : YW'(stride_h_c);
    last_y  <= bypass_d ? '0 : last_y_d;
    first_y <= bypass_d ? '0 : first_y_d;
    for (int k = 0; k < MaxWindow; k++) begin
      win_w_cols[k] <= bypass_d ? (k == 0) : (KW'(k) < KW'(window_w_c));
    end
    win_h_k <= bypass_d ? KW'(1) : KW'(window_h_c);
    act_lo  <= (act_min_c > act_max_c) ? act_max_c : act_min_c;
    act_hi  <= act_max_c;
  end

  // ---------------------------------------------------------------------------------------
  // Sequencer: position of the next step within the image (x, y count real positions from 0,
  // then the padding after them), where the next window column / row ends (ncx, ncy), the
  // output column, the line buffer of the current row, and which of the last MaxWindow rows
  // were real (rv[0]: the current row). start_q: the next step is an image's first, whose
  // position comes from the configuration.
  // ---------------------------------------------------------------------------------------
  logic                 start_q, start_d;
  logic [XW-1:0]        x_q, x_d, ncx_q, ncx_d;
  logic [YW-1:0]        y_q, y_d, ncy_q, ncy_d;
  logic [AW-1:0]        ox_q, ox_d;
  logic [PW-1:0]        ptr_q, ptr_d;
  logic [MaxWindow-1:0] rv_q, rv_d;
  logic [TagWidth-1:0]  tag_q, tag_d;  // tag of the last accepted input row

  logic                 x_cur_real, real_px, hcomp, vcomp, row_end, img_end, step;
  logic [XW-1:0]        x, ncx;
  logic [YW-1:0]        y, ncy;
  logic [AW-1:0]        ox;
  logic [PW-1:0]        ptr;
  logic [MaxWindow-1:0] rv;
  logic [TagWidth-1:0]  step_tag;
  logic                 s1_ready;  // stage 1 takes a step this cycle

  always_comb begin
    if (start_q) begin
      x   = '0;
      ncx = first_x;
      y   = '0;
      ncy = first_y;
      ox  = '0;
      ptr = '0;
      rv  = MaxWindow'(1);  // row 0 is real
    end else begin
      x   = x_q;
      ncx = ncx_q;
      y   = y_q;
      ncy = ncy_q;
      ox  = ox_q;
      ptr = ptr_q;
      rv  = rv_q;
    end
    x_cur_real = x < in_w;
    real_px    = x_cur_real && rv[0];
    hcomp      = x == ncx;
    vcomp      = y == ncy;
    row_end    = x == last_x;
    img_end    = row_end && (y == last_y);
    in_ready_o = s1_ready && real_px;
    step       = s1_ready && (in_valid_i || !real_px);
    step_tag   = real_px ? in_tag_i : tag_q;

    start_d = start_q;
    x_d     = x_q;
    ncx_d   = ncx_q;
    y_d     = y_q;
    ncy_d   = ncy_q;
    ox_d    = ox_q;
    ptr_d   = ptr_q;
    rv_d    = rv_q;
    tag_d   = tag_q;
    if (step) begin
      start_d = img_end;
      tag_d   = step_tag;
      y_d     = y;
      ncy_d   = ncy;
      ptr_d   = ptr;
      rv_d    = rv;
      if (row_end) begin
        x_d   = '0;
        ncx_d = first_x;
        ox_d  = '0;
        y_d   = y + YW'(1);
        ncy_d = vcomp ? ncy + str_h : ncy;
        ptr_d = (ptr == PW'(MaxWindow - 1)) ? '0 : ptr + PW'(1);
        rv_d  = {rv[MaxWindow-2:0], (y + YW'(1)) < in_h};
      end else begin
        x_d   = x + XW'(1);
        ncx_d = hcomp ? ncx + str_w : ncx;
        ox_d  = hcomp ? ox + AW'(1) : ox;
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      start_q <= 1'b1;
      x_q     <= '0;
      ncx_q   <= '0;
      y_q     <= '0;
      ncy_q   <= '0;
      ox_q    <= '0;
      ptr_q   <= '0;
      rv_q    <= '0;
      tag_q   <= '0;
    end else begin
      start_q <= start_d;
      x_q     <= x_d;
      ncx_q   <= ncx_d;
      y_q     <= y_d;
      ncy_q   <= ncy_d;
      ox_q    <= ox_d;
      ptr_q   <= ptr_d;
      rv_q    <= rv_d;
      tag_q   <= tag_d;
    end
  end

  // ---------------------------------------------------------------------------------------
  // Stage 1: the window shift register (entry 0 = the step just taken) with a bit per entry
  // saying its column is real (cleared at each row start: the padding before a row). A token
  // is in stage 1 when that step ended a window column; it leaves by writing the horizontal
  // result to the current row's line buffer, and goes on to stage 2 when the row also ends a
  // window row (emit).
  // ---------------------------------------------------------------------------------------
  logic [N*8-1:0]       sr_q [MaxWindow];
  logic [N*8-1:0]       sr_d [MaxWindow];
  logic [MaxWindow-1:0] cv_q, cv_d;

  logic                 s1_valid_q, s1_valid_d, s1_emit_q, s1_emit_d;
  logic [AW-1:0]        s1_ox_q, s1_ox_d;
  logic [PW-1:0]        s1_ptr_q, s1_ptr_d;
  logic [MaxWindow-1:0] s1_rv_q, s1_rv_d;
  logic [TagWidth-1:0]  s1_tag_q, s1_tag_d;
  logic                 s1_fire, s2_load, s2_ready;

  // Handshakes, kept apart from the datapath logic (Verilator would see a loop otherwise).
  assign s1_fire  = s1_valid_q && (!s1_emit_q || s2_ready);
  assign s1_ready = !s1_valid_q || s1_fire;
  assign s2_load  = s1_fire && s1_emit_q;

  always_comb begin
    sr_d[0] = step ? (real_px ? in_row_i : '0) : sr_q[0];
    cv_d    = cv_q;
    for (int k = 1; k < MaxWindow; k++) sr_d[k] = step ? sr_q[k-1] : sr_q[k];
    if (step) cv_d = {(x == '0) ? '0 : cv_q[MaxWindow-2:0], x_cur_real};

    s1_valid_d = s1_fire ? 1'b0 : s1_valid_q;
    s1_emit_d  = s1_emit_q;
    s1_ox_d    = s1_ox_q;
    s1_ptr_d   = s1_ptr_q;
    s1_rv_d    = s1_rv_q;
    s1_tag_d   = s1_tag_q;
    if (step) begin
      s1_valid_d = hcomp;
      s1_emit_d  = hcomp && vcomp;
      s1_ox_d    = ox;
      s1_ptr_d   = ptr;
      s1_rv_d    = rv;
      s1_tag_d   = step_tag;
    end
  end

  // One always_ff per entry: Yosys 0.23 cannot assign a whole unpacked array.
  for (genvar k = 0; k < MaxWindow; k++) begin : g_sr
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) sr_q[k] <= '0;
      else         sr_q[k] <= sr_d[k];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cv_q       <= '0;
      s1_valid_q <= 1'b0;
      s1_emit_q  <= 1'b0;
      s1_ox_q    <= '0;
      s1_ptr_q   <= '0;
      s1_rv_q    <= '0;
      s1_tag_q   <= '0;
    end else begin
      cv_q       <= cv_d;
      s1_valid_q <= s1_valid_d;
      s1_emit_q  <= s1_emit_d;
      s1_ox_q    <= s1_ox_d;
      s1_ptr_q   <= s1_ptr_d;
      s1_rv_q    <= s1_rv_d;
      s1_tag_q   <= s1_tag_d;
    end
  end

  // Max and sum of K masked items as balanced trees (log2(K) compares or adds deep, where a
  // serial walk over the items was K deep: the vertical walk was the activation pipeline's
  // critical path on an FPGA, docs/fpga.md). Items not used count as the max's identity
  // (the most negative value) and the sum's (0). The levels are split into the first (pairs
  // of items) and the others so that the vertical pooling can register between them.
  // Items are flat (Yosys 0.23 reads no packed-array arguments): item k at k*SW.
  localparam int unsigned TW = (MaxWindow + 1) * SW;

  // Unused items -> the sum's identity (for_sum, a constant at every call) or the max's.
  function automatic logic [TW-1:0] mask_items(logic [TW-1:0] items, logic [MaxWindow:0] use_k,
                                               logic for_sum);
    for (int k = 0; k <= MaxWindow; k++) begin
      mask_items[k*SW +: SW] = use_k[k] ? items[k*SW +: SW]
                                        : (for_sum ? '0 : {1'b1, {(SW - 1){1'b0}}});
    end
  endfunction

  // The first level (first = 1) or the others (first = 0) of the tree over items: item k
  // takes the max or the sum of itself and item k + w, for k a multiple of 2w; item 0 ends
  // with the result. Item MaxWindow takes part only when with_last (the vertical tree: the
  // current row); the horizontal tree has MaxWindow items. Both flags are constants at every
  // call, so synthesis keeps only the levels and pairs they select (an item that is always
  // the identity would still cost a compare: synthesis does not fold max(x, most negative)).
  function automatic logic [TW-1:0] max_levels(logic [TW-1:0] items, logic first,
                                               logic with_last);
    logic [TW-1:0] t;
    t = items;
    for (int w = 1; w <= MaxWindow; w = 2 * w) begin
      if ((w == 1) == first) begin
        for (int k = 0; k + w <= MaxWindow; k = k + 2 * w) begin
          if ((k + w < MaxWindow || with_last) &&
              $signed(t[(k+w)*SW +: SW]) > $signed(t[k*SW +: SW])) begin
            t[k*SW +: SW] = t[(k+w)*SW +: SW];
          end
        end
      end
    end
    max_levels = t;
  endfunction

  function automatic logic [TW-1:0] sum_levels(logic [TW-1:0] items, logic first,
                                               logic with_last);
    logic [TW-1:0] t;
    t = items;
    for (int w = 1; w <= MaxWindow; w = 2 * w) begin
      if ((w == 1) == first) begin
        for (int k = 0; k + w <= MaxWindow; k = k + 2 * w) begin
          if (k + w < MaxWindow || with_last) t[k*SW +: SW] = t[k*SW +: SW] + t[(k+w)*SW +: SW];
        end
      end
    end
    sum_levels = t;
  endfunction

  // The first level on the masked items, for the max and for the sum (avg); both are
  // computed and the mode selects.
  function automatic logic [TW-1:0] first_level(logic [TW-1:0] items, logic [MaxWindow:0] use_k,
                                                logic avg, logic with_last);
    first_level = avg ? sum_levels(mask_items(items, use_k, 1'b1), 1'b1, with_last)
                      : max_levels(mask_items(items, use_k, 1'b0), 1'b1, with_last);
  endfunction

  // The other levels; item 0 of the result is the max or the sum.
  function automatic logic [SW-1:0] other_levels(logic [TW-1:0] t, logic avg, logic with_last);
    /* verilator lint_off UNUSEDSIGNAL */  // item 0 holds the result
    logic [TW-1:0] r;
    /* verilator lint_on UNUSEDSIGNAL */
    r = avg ? sum_levels(t, 1'b0, with_last) : max_levels(t, 1'b0, with_last);
    other_levels = r[SW-1:0];
  endfunction

  // The window's columns in stage 1 (entry k of the shift register is used when k < window_w
  // and its column is real).
  logic [MaxWindow:0] h_use;
  always_comb begin
    h_use = '0;
    h_use[MaxWindow-1:0] = win_w_cols & cv_q;
  end

  // Horizontal result per lane (lane l at l*HW): the max (sign-extended) or the sum of the
  // window's real columns. The pooling datapath is written as functions called where a
  // register or memory loads, under its enable, so that the Verilated model computes it only
  // in the cycles a row moves (as combinational blocks it ran every cycle, pooling or not);
  // synthesis builds the same logic either way.
  logic [MaxWindow*N*8-1:0] sr_flat;  // entry k at k*N*8
  for (genvar k = 0; k < MaxWindow; k++) begin : g_sr_flat
    assign sr_flat[k*N*8 +: N*8] = sr_q[k];
  end

  function automatic logic [N*HW-1:0] h_pool(logic [MaxWindow*N*8-1:0] sr,
                                             logic [MaxWindow:0] use_k, logic avg);
    logic [TW-1:0] items;
    for (int l = 0; l < N; l++) begin
      items = '0;
      for (int k = 0; k < MaxWindow; k++) begin
        items[k*SW +: SW] = SW'($signed(sr[k*N*8 + l*8 +: 8]));
      end
      h_pool[l*HW +: HW] = HW'(other_levels(first_level(items, use_k, avg, 1'b0), avg, 1'b0));
    end
  endfunction

  // Window element count, and which line buffers hold real rows of the window: line buffer b
  // holds row (current - k), k = (ptr - b) mod MaxWindow; k = 0 is stale (the current row
  // arrives from stage 1 directly).
  logic [KW-1:0]        count_w, count_h;
  logic [CW-1:0]        s1_count;
  logic [MaxWindow-1:0] s1_bank_use;
  logic [PW:0]          bank_age [MaxWindow];

  always_comb begin
    count_w = '0;
    count_h = '0;
    for (int k = 0; k < MaxWindow; k++) begin
      if (win_w_cols[k] && cv_q[k])       count_w = count_w + KW'(1);
      if (KW'(k) < win_h_k && s1_rv_q[k]) count_h = count_h + KW'(1);
    end
    s1_count = CW'(count_w) * CW'(count_h);
    for (int b = 0; b < MaxWindow; b++) begin
      bank_age[b] = (s1_ptr_q >= PW'(b)) ? {1'b0, s1_ptr_q} - PW1'(b)
                                         : {1'b0, s1_ptr_q} + PW1'(MaxWindow - b);
      s1_bank_use[b] = bank_age[b] != '0 && bank_age[b] < PW1'(win_h_k) &&
                       s1_rv_q[PW'(bank_age[b])];
    end
  end

  // ---------------------------------------------------------------------------------------
  // Line buffers: MaxWindow memories of MaxWidth horizontal results (one per output column),
  // one per row mod MaxWindow. Written by every stage-1 token, read when one moves to stage 2.
  // Plain arrays with one synchronous write and one synchronous read port each (inferred as
  // memories); the read register is the memory's, without reset.
  // ---------------------------------------------------------------------------------------
  logic [N*HW-1:0] lb_rdata_q [MaxWindow];

  for (genvar b = 0; b < MaxWindow; b++) begin : g_lb
    logic [N*HW-1:0] mem [MaxWidth];
    logic            we;
    assign we = s1_fire && s1_ptr_q == PW'(b);
    always_ff @(posedge clk_i) begin
      if (we) mem[s1_ox_q] <= h_pool(sr_flat, h_use, is_avg);
    end
    always_ff @(posedge clk_i) begin
      if (s2_load) lb_rdata_q[b] <= mem[s1_ox_q];
    end
  end

  // ---------------------------------------------------------------------------------------
  // Stage 2: the current row's horizontal result and the line buffers' words; the first level
  // of their vertical combination.
  // ---------------------------------------------------------------------------------------
  logic                 s2_valid_q, s2_valid_d, s2_cur_q, s2_cur_d;
  logic [N*HW-1:0]      s2_h_q;
  logic [MaxWindow-1:0] s2_use_q, s2_use_d;
  logic [CW-1:0]        s2_count_q, s2_count_d;
  logic [TagWidth-1:0]  s2_tag_q, s2_tag_d;
  logic                 s2_fire, s3_ready;

  assign s2_fire  = s2_valid_q && s3_ready;
  assign s2_ready = !s2_valid_q || s3_ready;

  always_comb begin
    s2_valid_d = s2_load ? 1'b1 : (s2_fire ? 1'b0 : s2_valid_q);
    s2_cur_d   = s2_load ? s1_rv_q[0]  : s2_cur_q;
    s2_use_d   = s2_load ? s1_bank_use : s2_use_q;
    s2_count_d = s2_load ? s1_count    : s2_count_q;
    s2_tag_d   = s2_load ? s1_tag_q    : s2_tag_q;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s2_valid_q <= 1'b0;
      s2_cur_q   <= 1'b0;
      s2_use_q   <= '0;
      s2_count_q <= '0;
      s2_tag_q   <= '0;
    end else begin
      s2_valid_q <= s2_valid_d;
      s2_cur_q   <= s2_cur_d;
      s2_use_q   <= s2_use_d;
      s2_count_q <= s2_count_d;
      s2_tag_q   <= s2_tag_d;
    end
  end

  // Datapath registers without reset: read only with their stage's valid bit.
  always_ff @(posedge clk_i) begin
    if (s2_load) s2_h_q <= h_pool(sr_flat, h_use, is_avg);
  end

  // The vertical combination per lane: the line buffers' words of the window's earlier rows
  // and the current row's horizontal result, as a tree whose first level is computed in stage
  // 2 (lane l's items after it at l*TW) and the others in stage 3 (lane l's result at l*SW).
  // The tree from the line buffers' read ports in one cycle limited the activation pipeline's
  // clock on an FPGA (docs/fpga.md).
  logic [MaxWindow*N*HW-1:0] lb_flat;  // line buffer b's word at b*N*HW
  for (genvar b = 0; b < MaxWindow; b++) begin : g_lb_flat
    assign lb_flat[b*N*HW +: N*HW] = lb_rdata_q[b];
  end

  function automatic logic [N*TW-1:0] v_first(logic [MaxWindow*N*HW-1:0] lb,
                                              logic [N*HW-1:0] h, logic [MaxWindow:0] use_k,
                                              logic avg);
    logic [TW-1:0] items;
    for (int l = 0; l < N; l++) begin
      // Every window holds at least one real element, so the max's identity never survives.
      for (int b = 0; b < MaxWindow; b++) begin
        items[b*SW +: SW] = SW'($signed(lb[b*N*HW + l*HW +: HW]));
      end
      items[MaxWindow*SW +: SW] = SW'($signed(h[l*HW +: HW]));
      v_first[l*TW +: TW] = first_level(items, use_k, avg, 1'b1);
    end
  endfunction

  function automatic logic [N*SW-1:0] v_rest(logic [N*TW-1:0] t, logic avg);
    for (int l = 0; l < N; l++) v_rest[l*SW +: SW] = other_levels(t[l*TW +: TW], avg, 1'b1);
  endfunction

  // ---------------------------------------------------------------------------------------
  // Stage 3: the vertical tree's first level done; the reciprocal of the window's count.
  // ---------------------------------------------------------------------------------------
  logic                s3_valid_q, s3_valid_d;
  /* verilator lint_off UNUSEDSIGNAL */  // items the first level combined into their partner
  logic [N*TW-1:0]     s3_t_q;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [RW-1:0]       s3_recip_q, s3_recip_d, s2_recip;
  logic [TagWidth-1:0] s3_tag_q, s3_tag_d;
  logic                s3_fire, s4_ready;

  assign s3_fire  = s3_valid_q && s4_ready;
  assign s3_ready = !s3_valid_q || s4_ready;

  always_comb begin
    s3_valid_d = s2_fire ? 1'b1 : (s3_fire ? 1'b0 : s3_valid_q);
    s3_recip_d = s2_fire ? s2_recip : s3_recip_q;
    s3_tag_d   = s2_fire ? s2_tag_q : s3_tag_q;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s3_valid_q <= 1'b0;
      s3_recip_q <= '0;
      s3_tag_q   <= '0;
    end else begin
      s3_valid_q <= s3_valid_d;
      s3_recip_q <= s3_recip_d;
      s3_tag_q   <= s3_tag_d;
    end
  end

  always_ff @(posedge clk_i) begin
    if (s2_fire) s3_t_q <= v_first(lb_flat, s2_h_q, {s2_cur_q, s2_use_q}, is_avg);
  end

  // ---------------------------------------------------------------------------------------
  // Stage 4: the window's max or sum per lane; the average's division.
  // ---------------------------------------------------------------------------------------
  logic                s4_valid_q, s4_valid_d;
  logic [N*SW-1:0]     s4_v_q;
  logic [RW-1:0]       s4_recip_q, s4_recip_d;
  logic [TagWidth-1:0] s4_tag_q, s4_tag_d;
  logic                s4_fire, s5_ready;

  assign s4_fire  = s4_valid_q && s5_ready;
  assign s4_ready = !s4_valid_q || s5_ready;

  always_comb begin
    s4_valid_d = s3_fire ? 1'b1 : (s4_fire ? 1'b0 : s4_valid_q);
    s4_recip_d = s3_fire ? s3_recip_q : s4_recip_q;
    s4_tag_d   = s3_fire ? s3_tag_q   : s4_tag_q;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s4_valid_q <= 1'b0;
      s4_recip_q <= '0;
      s4_tag_q   <= '0;
    end else begin
      s4_valid_q <= s4_valid_d;
      s4_recip_q <= s4_recip_d;
      s4_tag_q   <= s4_tag_d;
    end
  end

  always_ff @(posedge clk_i) begin
    if (s3_fire) s4_v_q <= v_rest(s3_t_q, is_avg);
  end

  // ---------------------------------------------------------------------------------------
  // Stage 5: the pooled value per lane (the average, or the max); the clamp.
  // ---------------------------------------------------------------------------------------
  logic                s5_valid_q, s5_valid_d;
  logic [N*SW-1:0]     s5_pooled_q, s4_pooled;
  logic [TagWidth-1:0] s5_tag_q, s5_tag_d;
  logic                s5_fire, out_ready;

  assign s5_fire  = s5_valid_q && out_ready;
  assign s5_ready = !s5_valid_q || out_ready;

  always_comb begin
    s5_valid_d = s4_fire ? 1'b1 : (s5_fire ? 1'b0 : s5_valid_q);
    s5_tag_d   = s4_fire ? s4_tag_q : s5_tag_q;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s5_valid_q <= 1'b0;
      s5_tag_q   <= '0;
    end else begin
      s5_valid_q <= s5_valid_d;
      s5_tag_q   <= s5_tag_d;
    end
  end

  always_ff @(posedge clk_i) begin
    if (s4_fire) s5_pooled_q <= s4_pooled;
  end

  logic [N*8-1:0] pooled_row;
  // Lane 0's divider prepares the reciprocal from stage 2's count, and it is registered for
  // every lane; the other lanes' preparation gets a constant count (nothing reads it: synthesis
  // drops it, and the Verilated model does not compute it every cycle).
  /* verilator lint_off UNUSEDSIGNAL */
  logic [N*RW-1:0] lane_recip;
  /* verilator lint_on UNUSEDSIGNAL */
  assign s2_recip = lane_recip[RW-1:0];

  for (genvar l = 0; l < N; l++) begin : g_out
    logic signed [SW-1:0] v, avg, pooled, lo, hi;
    logic                 below, above;
    logic [7:0]           res;
    assign v = s4_v_q[l*SW +: SW];
    assign s4_pooled[l*SW +: SW] = is_avg ? avg : v;

    tpu_act_pool_div #(
      .SumWidth  (SW),
      .MaxCount  (MaxWindow * MaxWindow),
      .RecipWidth(RW)
    ) u_div (
      .count_i((l == 0) ? s2_count_q : CW'(1)),
      .recip_o(lane_recip[l*RW +: RW]),
      .sum_i  (v),
      .recip_i(s4_recip_q),
      .avg_o  (avg)
    );

    always_comb begin
      lo     = SW'(act_lo);
      hi     = SW'(act_hi);
      pooled = s5_pooled_q[l*SW +: SW];
      // The clamp (std::clamp to [act_min, act_max]) as two compares side by side rather than
      // one after the other: with act_lo = min(act_min, act_max) (registered above), a value
      // below act_lo becomes act_lo, one above act_max becomes act_max.
      below = pooled < lo;
      above = pooled > hi;
      res   = pooled[7:0];
      if (!bypass) begin
        if (below)      res = act_lo;
        else if (above) res = act_hi;
      end
    end
    assign pooled_row[l*8 +: 8] = res;
  end

  // ---------------------------------------------------------------------------------------
  // Output register.
  // ---------------------------------------------------------------------------------------
  logic                out_valid_q, out_valid_d;
  logic [N*8-1:0]      out_row_q, out_row_d;
  logic [TagWidth-1:0] out_tag_q, out_tag_d;

  assign out_ready = !out_valid_q || out_ready_i;

  always_comb begin
    out_valid_d = s5_fire ? 1'b1 : ((out_valid_q && out_ready_i) ? 1'b0 : out_valid_q);
    out_row_d   = s5_fire ? pooled_row : out_row_q;
    out_tag_d   = s5_fire ? s5_tag_q   : out_tag_q;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      out_valid_q <= 1'b0;
      out_row_q   <= '0;
      out_tag_q   <= '0;
    end else begin
      out_valid_q <= out_valid_d;
      out_row_q   <= out_row_d;
      out_tag_q   <= out_tag_d;
    end
  end

  assign out_valid_o = out_valid_q;
  assign out_row_o   = out_row_q;
  assign out_tag_o   = out_tag_q;
  assign busy_o      = !start_q || s1_valid_q || s2_valid_q || s3_valid_q || s4_valid_q ||
                       s5_valid_q || out_valid_q;

  // ---------------------------------------------------------------------------------------
  // Assertions
  // ---------------------------------------------------------------------------------------
`ifndef SYNTHESIS
  // Legal configuration of a pooled image (bypass ignores the sizes).
  logic cfg_legal;
  logic [2 + 2 * DimWidth + 4 * WinWidth + 1 + 16 - 1:0] cfg_bits;
  always_comb begin
    cfg_bits  = {cfg_mode_i, cfg_in_h_i, cfg_in_w_i, cfg_window_h_i, cfg_window_w_i,
                 cfg_stride_h_i, cfg_stride_w_i, cfg_same_i, cfg_act_min_i, cfg_act_max_i};
    cfg_legal = cfg_mode_i == PoolModeBypass || cfg_mode_i == PoolModeMax ||
                cfg_mode_i == PoolModeAvg;
    if (cfg_mode_i != PoolModeBypass) begin
      cfg_legal = cfg_legal &&
          // Waiver: a limit may be the largest value its field holds (tpu_core builds image 255
          // in 8 bits, window 15 in 4 bits), which makes these comparisons constant there.
          /* verilator lint_off CMPCONST */
          cfg_in_w_i >= 1 && 32'(cfg_in_w_i) <= MaxWidth &&
          cfg_in_h_i >= 1 && 32'(cfg_in_h_i) <= MaxHeight &&
          cfg_window_w_i >= 1 && 32'(cfg_window_w_i) <= MaxWindow &&
          cfg_window_h_i >= 1 && 32'(cfg_window_h_i) <= MaxWindow &&
          /* verilator lint_on CMPCONST */
          cfg_stride_w_i >= 1 && 32'(cfg_stride_w_i) <= MaxStride &&
          cfg_stride_h_i >= 1 && 32'(cfg_stride_h_i) <= MaxStride &&
          (cfg_same_i || (cfg_in_w_i >= DimWidth'(cfg_window_w_i) &&
                          cfg_in_h_i >= DimWidth'(cfg_window_h_i))) &&
          cfg_act_min_i <= cfg_act_max_i;
    end
  end
`endif

  `TPU_ASSERT_INIT(PoolParamsLegal, N >= 1 && MaxWidth >= 2 && MaxWindow >= 2 &&
                   MaxStride >= 1 && MaxHeight >= 1 && MaxWindow < (1 << WinWidth) &&
                   MaxStride < (1 << WinWidth))
  `TPU_ASSERT(NoXOnValid, !$isunknown(in_valid_i) && !$isunknown(out_ready_i), clk_i, rst_ni)
  `TPU_ASSERT(ConfigLegal, !step || cfg_legal, clk_i, rst_ni)
  `TPU_STABLE(cfg_stable, cfg_bits, clk_i)
  // The configuration registers hold what the inputs were one and two cycles before: an
  // image's first step needs them unchanged since then.
  `TPU_ASSERT(ConfigSettledAtImageStart, !(start_q && step) || (cfg_stable && $past(cfg_stable)),
              clk_i, rst_ni)
  `TPU_ASSERT(ConfigStableWhileBusy, !$past(busy_o) || cfg_stable, clk_i, rst_ni)

endmodule
