`include "tpu_assert.svh"
// FIFO of Depth entries of Width bits. Used as the controller's per-unit instruction queues
// (dispatcher to unit sequencer, docs/controller.md) and by the host interface (received
// request fields, DMA read order and beats, DMA write descriptors; docs/host_if.md).
// Valid/ready on both sides; the head is registered storage, so out_valid_o and out_data_o
// depend only on registers. Latency: an entry pushed at edge t is at the head after edge t
// (one cycle, no bypass); one push and one pop per cycle, also when full (a pop frees the slot
// the push of the same cycle takes: in_ready_o then depends on out_ready_i). clear_i drops
// every entry, including one offered in its cycle (in_ready_o may still read 1): producers do
// not push while they clear.
module tpu_fifo #(
  parameter int unsigned Width = 160,  // bits per entry
  parameter int unsigned Depth = 4,    // entries, >= 2
  localparam int unsigned PtrWidth = (Depth > 1) ? $clog2(Depth) : 1,  // slot index bits
  localparam int unsigned CntWidth = $clog2(Depth + 1)                  // entry count bits
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  input  logic                clear_i,      // drop every entry
  // Push side (producer, e.g. the dispatcher).
  input  logic                in_valid_i,   // in_data_i holds an entry
  output logic                in_ready_o,   // ... and it is taken this cycle
  input  logic [Width-1:0]    in_data_i,    // the entry
  // Pop side (consumer, e.g. a unit sequencer).
  output logic                out_valid_o,  // out_data_o holds the oldest entry
  input  logic                out_ready_i,  // ... and it is taken this cycle
  output logic [Width-1:0]    out_data_o,   // the oldest entry
  // Status.
  output logic [CntWidth-1:0] count_o,      // entries held
  output logic                empty_o       // no entry held
);

  logic [Width-1:0]    mem [Depth];
  logic [PtrWidth-1:0] wr_ptr_d, wr_ptr_q, rd_ptr_d, rd_ptr_q;
  logic [CntWidth-1:0] count_d, count_q;
  logic                push, pop;

  assign in_ready_o  = (count_q != CntWidth'(Depth)) || out_ready_i;
  assign out_valid_o = count_q != '0;
  assign push        = in_valid_i && in_ready_o && !clear_i;
  assign pop         = out_valid_o && out_ready_i && !clear_i;

  always_comb begin
    wr_ptr_d = wr_ptr_q;
    rd_ptr_d = rd_ptr_q;
    count_d  = count_q;
    if (clear_i) begin
      wr_ptr_d = '0;
      rd_ptr_d = '0;
      count_d  = '0;
    end else begin
      if (push) begin
        wr_ptr_d = (wr_ptr_q == PtrWidth'(Depth - 1)) ? '0 : wr_ptr_q + PtrWidth'(1);
      end
      if (pop) begin
        rd_ptr_d = (rd_ptr_q == PtrWidth'(Depth - 1)) ? '0 : rd_ptr_q + PtrWidth'(1);
      end
      unique case ({push, pop})
        2'b10:   count_d = count_q + CntWidth'(1);
        2'b01:   count_d = count_q - CntWidth'(1);
        default: count_d = count_q;
      endcase
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wr_ptr_q <= '0;
      rd_ptr_q <= '0;
      count_q  <= '0;
    end else begin
      wr_ptr_q <= wr_ptr_d;
      rd_ptr_q <= rd_ptr_d;
      count_q  <= count_d;
    end
  end

  // Storage: one write per cycle, no reset (inferred as a memory).
  always_ff @(posedge clk_i) begin
    if (push) mem[wr_ptr_q] <= in_data_i;
  end

  assign out_data_o = mem[rd_ptr_q];
  assign count_o    = count_q;
  assign empty_o    = count_q == '0;

  `TPU_ASSERT_INIT(DepthAtLeastTwo, Depth >= 2)
  `TPU_ASSERT(CountInRange, count_q <= CntWidth'(Depth), clk_i, rst_ni)

endmodule
