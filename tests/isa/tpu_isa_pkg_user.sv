// Test fixture for the generated package tpu_isa_pkg (tests/isa/CMakeLists.txt): the
// dispatcher's first decode checks written with the package's constants only, so that
// lint.tpu_isa_pkg (Verilator -Wall) and synth.tpu_isa_pkg (Yosys 0.23) prove that the package
// reads cleanly where it is used. Combinational.
module tpu_isa_pkg_user (
  // One instruction, word w at bits [32w +: 32].
  input  logic [tpu_isa_pkg::InstrBits-1:0]         instr_i,
  // ErrOk, ErrIllegalOpcode or ErrReservedNonzero.
  output logic [tpu_isa_pkg::ErrorWidth-1:0]        error_o,
  // The instruction's unit: {activation, matrix, weights, dma}; 0 for control instructions.
  output logic [3:0]                                unit_o,
  // Dependency masks (0 for NOP and HALT, which have none).
  output logic [tpu_isa_pkg::MatmulWaitWidth-1:0]   wait_o,
  output logic [tpu_isa_pkg::MatmulSignalWidth-1:0] signal_o,
  // MATMUL fields.
  output logic [tpu_isa_pkg::MatmulRowsWidth-1:0]   matmul_rows_o,
  output logic                                      matmul_accumulate_o
);

  logic [tpu_isa_pkg::OpcodeWidth-1:0] opcode;
  logic [tpu_isa_pkg::InstrBits-1:0]   reserved_mask;
  logic                                known, has_tokens;

  assign opcode = instr_i[tpu_isa_pkg::OpcodeLsb +: tpu_isa_pkg::OpcodeWidth];

  always_comb begin
    known         = 1'b1;
    has_tokens    = 1'b1;
    unit_o        = '0;
    reserved_mask = '0;
    unique case (opcode)
      tpu_isa_pkg::OpNop: begin
        reserved_mask = tpu_isa_pkg::NopReservedMask;
        has_tokens    = 1'b0;
      end
      tpu_isa_pkg::OpHalt: begin
        reserved_mask = tpu_isa_pkg::HaltReservedMask;
        has_tokens    = 1'b0;
      end
      tpu_isa_pkg::OpSync:        reserved_mask = tpu_isa_pkg::SyncReservedMask;
      tpu_isa_pkg::OpReadHost: begin
        reserved_mask = tpu_isa_pkg::ReadHostReservedMask;
        unit_o[tpu_isa_pkg::UnitsDmaBit] = 1'b1;
      end
      tpu_isa_pkg::OpWriteHost: begin
        reserved_mask = tpu_isa_pkg::WriteHostReservedMask;
        unit_o[tpu_isa_pkg::UnitsDmaBit] = 1'b1;
      end
      tpu_isa_pkg::OpReadWeights: begin
        reserved_mask = tpu_isa_pkg::ReadWeightsReservedMask;
        unit_o[tpu_isa_pkg::UnitsWeightsBit] = 1'b1;
      end
      tpu_isa_pkg::OpMatmul: begin
        reserved_mask = tpu_isa_pkg::MatmulReservedMask;
        unit_o[tpu_isa_pkg::UnitsMatrixBit] = 1'b1;
      end
      tpu_isa_pkg::OpActivate: begin
        reserved_mask = tpu_isa_pkg::ActivateReservedMask;
        unit_o[tpu_isa_pkg::UnitsActivationBit] = 1'b1;
      end
      default: begin
        known      = 1'b0;
        has_tokens = 1'b0;
      end
    endcase
  end

  always_comb begin
    if (!known) begin
      error_o = tpu_isa_pkg::ErrIllegalOpcode;
    end else if (|(instr_i & reserved_mask)) begin
      error_o = tpu_isa_pkg::ErrReservedNonzero;
    end else begin
      error_o = tpu_isa_pkg::ErrOk;
    end
  end

  // Every instruction with tokens has them at the same bits.
  assign wait_o   = has_tokens ? instr_i[tpu_isa_pkg::MatmulWaitLsb +: tpu_isa_pkg::MatmulWaitWidth]
                               : '0;
  assign signal_o = has_tokens ?
                    instr_i[tpu_isa_pkg::MatmulSignalLsb +: tpu_isa_pkg::MatmulSignalWidth] : '0;
  assign matmul_rows_o = instr_i[tpu_isa_pkg::MatmulRowsLsb +: tpu_isa_pkg::MatmulRowsWidth];
  assign matmul_accumulate_o =
      instr_i[tpu_isa_pkg::MatmulAccModeLsb +: tpu_isa_pkg::MatmulAccModeWidth] ==
      tpu_isa_pkg::AccModeAccumulate;

endmodule
