`include "tpu_assert.svh"
// PCI configuration space of the endpoint's one function (docs/host_if.md section 8): the
// Type 0 header and the PCI Express capability, read and written by the CfgRd0 / CfgWr0
// requests tpu_host_rx takes (one DW each, by register number and byte enables).
//
// - Header: Vendor / Device ID, Command (Memory Space Enable, Bus Master Enable read/write,
//   the other bits 0), Status (Capabilities List), Revision ID and Class code (12h 00h 00h:
//   processing accelerator), Header Type 0, BAR0 (32-bit memory, not prefetchable, 4 KiB:
//   bits 31:12 read/write, 11:0 read 0, so writing all ones reads back the size mask
//   FFFFF000h), Subsystem IDs, Capabilities Pointer 40h. Everything else reads 0.
// - PCI Express capability at 40h (the list's only entry): Capabilities (version 2, endpoint),
//   Device Capabilities (Max_Payload_Size Supported = MaxPayload, Role-Based Error Reporting),
//   Device Control (Relaxed Ordering and No Snoop enables, reset 1, no effect here;
//   Max_Payload_Size, reset 000b = 128 bytes; Max_Read_Request_Size, reset 010b = 512 bytes;
//   read/write), the link registers 0 (the link is modeled outside the RTL).
// - Requester ID: a CfgWr0 carries the function's bus and device numbers (its target ID);
//   each one the function completes is captured and id_o = {bus, device, function 0} is the
//   requester ID of the device's requests and the completer ID of its completions (0 until the
//   first CfgWr0).
// - DMA sizes: mps_mask_o / mrrs_mask_o are the sizes in Device Control minus 1, clamped to
//   the build's MaxPayload / MaxReadReq (reserved encodings count as the largest); the DMA
//   engines read them at every beat, so a change applies from the next request.
// rdata_o is the register at req_reg_i as it is before this cycle's write (combinational);
// a write is applied at the clock edge.
module tpu_host_cfg #(
  parameter logic [15:0] VendorId   = 16'h1234,  // not an assigned vendor ID (placeholder)
  parameter logic [15:0] DeviceId   = 16'h7470,  // "tp"
  parameter logic [7:0]  RevisionId = 8'h01,
  parameter int unsigned MaxPayload = 256,       // largest MPS the DMA engines take, bytes
  parameter int unsigned MaxReadReq = 512        // largest MRRS the DMA engines take, bytes
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  // Configuration requests (CfgRd0 / CfgWr0 of function 0).
  input  logic        req_write_i,    // a CfgWr0 is applied this cycle
  input  logic [9:0]  req_reg_i,      // register (DW) number
  input  logic [3:0]  req_be_i,       // first DW byte enables
  input  logic [31:0] req_wdata_i,    // write data
  input  logic [15:0] req_target_i,   // the request's bus, device and function numbers
  output logic [31:0] rdata_o,        // register req_reg_i
  // Configuration the endpoint uses.
  output logic [15:0] id_o,           // requester / completer ID
  output logic        mem_enable_o,   // Command: Memory Space Enable
  output logic        bus_master_o,   // Command: Bus Master Enable
  output logic [11:0] mps_mask_o,     // max payload size in use, bytes - 1
  output logic [11:0] mrrs_mask_o,    // max read request size in use, bytes - 1
  output logic [31:0] bar0_o          // BAR0 as written (bits 11:0 zero)
);

  localparam logic [23:0] ClassCode = 24'h120000;  // processing accelerator
  localparam logic [7:0]  CapPtr    = 8'h40;       // PCI Express capability
  // Register numbers (byte offset / 4).
  localparam logic [9:0] RegId      = 10'h000;
  localparam logic [9:0] RegCmd     = 10'h001;
  localparam logic [9:0] RegClass   = 10'h002;
  localparam logic [9:0] RegBar0    = 10'h004;
  localparam logic [9:0] RegSubsys  = 10'h00B;
  localparam logic [9:0] RegCapPtr  = 10'h00D;
  localparam logic [9:0] RegPcieCap = 10'h010;  // 40h
  localparam logic [9:0] RegDevCap  = 10'h011;  // 44h
  localparam logic [9:0] RegDevCtl  = 10'h012;  // 48h

  // Max_Payload_Size Supported: the largest encoding (128 << e bytes) not above MaxPayload.
  localparam logic [2:0] MpsSupported = (MaxPayload >= 4096) ? 3'd5 :
                                        (MaxPayload >= 2048) ? 3'd4 :
                                        (MaxPayload >= 1024) ? 3'd3 :
                                        (MaxPayload >= 512)  ? 3'd2 :
                                        (MaxPayload >= 256)  ? 3'd1 : 3'd0;

  logic        mse_d, mse_q, bme_d, bme_q;
  logic [19:0] bar_d, bar_q;          // BAR0 bits 31:12
  logic [12:0] bus_dev_d, bus_dev_q;  // captured bus (8) and device (5) numbers
  logic        ro_en_d, ro_en_q, ns_en_d, ns_en_q;
  logic [2:0]  mps_d, mps_q, mrrs_d, mrrs_q;

  logic [31:0] cmd_reg, bar_reg, devctl_reg, wmask;

  assign cmd_reg    = {16'h0010, 13'h0, bme_q, mse_q, 1'b0};  // Status: Capabilities List
  assign bar_reg    = {bar_q, 12'h000};
  assign devctl_reg = {16'h0000, 1'b0, mrrs_q, ns_en_q, 3'b000, mps_q, ro_en_q, 4'h0};
  assign wmask      = {{8{req_be_i[3]}}, {8{req_be_i[2]}}, {8{req_be_i[1]}}, {8{req_be_i[0]}}};

  always_comb begin
    rdata_o = '0;
    unique case (req_reg_i)
      RegId:      rdata_o = {DeviceId, VendorId};
      RegCmd:     rdata_o = cmd_reg;
      RegClass:   rdata_o = {ClassCode, RevisionId};
      RegBar0:    rdata_o = bar_reg;
      RegSubsys:  rdata_o = {DeviceId, VendorId};
      RegCapPtr:  rdata_o = {24'h0, CapPtr};
      // Capability ID 10h, next 0, version 2, device/port type 0000b (PCI Express endpoint).
      RegPcieCap: rdata_o = {16'h0002, 8'h00, 8'h10};
      RegDevCap:  rdata_o = {16'h0000, 1'b1, 12'h000, MpsSupported};
      RegDevCtl:  rdata_o = devctl_reg;
      default:    rdata_o = '0;
    endcase
  end

  // Writes: only the read/write fields change, under their byte enables.
  logic [31:0] cmd_w, bar_w, devctl_w;

  assign cmd_w    = (cmd_reg & ~wmask) | (req_wdata_i & wmask);
  assign bar_w    = (bar_reg & ~wmask) | (req_wdata_i & wmask);
  assign devctl_w = (devctl_reg & ~wmask) | (req_wdata_i & wmask);

  always_comb begin
    mse_d     = mse_q;
    bme_d     = bme_q;
    bar_d     = bar_q;
    bus_dev_d = bus_dev_q;
    ro_en_d   = ro_en_q;
    ns_en_d   = ns_en_q;
    mps_d     = mps_q;
    mrrs_d    = mrrs_q;
    if (req_write_i) begin
      bus_dev_d = req_target_i[15:3];
      unique case (req_reg_i)
        RegCmd: begin
          mse_d = cmd_w[1];
          bme_d = cmd_w[2];
        end
        RegBar0: bar_d = bar_w[31:12];
        RegDevCtl: begin
          ro_en_d = devctl_w[4];
          mps_d   = devctl_w[7:5];
          ns_en_d = devctl_w[11];
          mrrs_d  = devctl_w[14:12];
        end
        default: ;
      endcase
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      mse_q     <= 1'b0;
      bme_q     <= 1'b0;
      bar_q     <= '0;
      bus_dev_q <= '0;
      ro_en_q   <= 1'b1;
      ns_en_q   <= 1'b1;
      mps_q     <= 3'd0;  // 128 bytes
      mrrs_q    <= 3'd2;  // 512 bytes
    end else begin
      mse_q     <= mse_d;
      bme_q     <= bme_d;
      bar_q     <= bar_d;
      bus_dev_q <= bus_dev_d;
      ro_en_q   <= ro_en_d;
      ns_en_q   <= ns_en_d;
      mps_q     <= mps_d;
      mrrs_q    <= mrrs_d;
    end
  end

  // Sizes in use: 128 << encoding bytes (reserved encodings 6 and 7: the largest), clamped.
  logic [13:0] mps_bytes, mrrs_bytes;

  assign mps_bytes  = (mps_q > 3'd5) ? 14'd4096 : (14'd128 << mps_q);
  assign mrrs_bytes = (mrrs_q > 3'd5) ? 14'd4096 : (14'd128 << mrrs_q);

  assign mps_mask_o  = (mps_bytes > 14'(MaxPayload)) ? 12'(MaxPayload - 1) :
                                                       12'(mps_bytes - 14'd1);
  assign mrrs_mask_o = (mrrs_bytes > 14'(MaxReadReq)) ? 12'(MaxReadReq - 1) :
                                                        12'(mrrs_bytes - 14'd1);

  assign id_o         = {bus_dev_q, 3'b000};
  assign mem_enable_o = mse_q;
  assign bus_master_o = bme_q;
  assign bar0_o       = bar_reg;

  // The function number (this is function 0) and the read-only bits of written registers.
  logic unused_bits;
  assign unused_bits = ^{req_target_i[2:0], cmd_w[31:3], cmd_w[0], bar_w[11:0],
                         devctl_w[31:15], devctl_w[10:8], devctl_w[3:0]};

  // ---------------------------------------------------------------------------------------
  // Assertions
  // ---------------------------------------------------------------------------------------
  `TPU_ASSERT_INIT(SizesLegal, MaxPayload >= 16 && MaxPayload <= 4096 &&
                               MaxReadReq >= 16 && MaxReadReq <= 4096)
  `TPU_ASSERT(MasksBelowBuild, 32'(mps_mask_o) < MaxPayload && 32'(mrrs_mask_o) < MaxReadReq,
              clk_i, rst_ni)

endmodule
