// The weight DRAM (sc_models/weight_dram.h): tile-read timing (latency + beats, back-to-back
// reads streaming at the beat rate), agreement with the cycle-level port it wraps
// (DramPortModel), row writes with byte enables, the error responses, debug access and
// the bandwidth helpers.
#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>

#include <random>

#include "sc_models/weight_dram.h"
#include "tests/sc_models/sc_testing.h"

namespace tpu::sc {
namespace {

using testing::NowNs;

WeightDramConfig Config() {
  WeightDramConfig c;  // N = 16, 256-bit beats (8 a tile), 700 MHz, 20 cycles of latency
  c.size_bytes = 1 << 20;
  return c;
}

class Initiator : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<Initiator> socket;
  explicit Initiator(sc_core::sc_module_name name) : sc_core::sc_module(name), socket("socket") {}

  tlm::tlm_response_status Access(tlm::tlm_command cmd, uint64_t address, uint8_t* data,
                                  unsigned length, sc_core::sc_time* delay,
                                  const uint8_t* be = nullptr, unsigned be_length = 0) {
    tlm::tlm_generic_payload trans;
    trans.set_command(cmd);
    trans.set_address(address);
    trans.set_data_ptr(data);
    trans.set_data_length(length);
    trans.set_streaming_width(length);
    trans.set_byte_enable_ptr(const_cast<uint8_t*>(be));
    trans.set_byte_enable_length(be_length);
    trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    socket->b_transport(trans, *delay);
    return trans.get_response_status();
  }
};

class Testbench : public sc_core::sc_module {
 public:
  explicit Testbench(sc_core::sc_module_name name)
      : sc_core::sc_module(name), runner("runner"), dram("dram", Config()), cpu("cpu") {
    cpu.socket.bind(dram.socket);
  }
  testing::JobRunner runner;
  WeightDram dram;
  Initiator cpu;
};

Testbench* bench = nullptr;

double Cycles(const sc_core::sc_time& t) { return t / bench->dram.cycle(); }

TEST(WeightDram, TileReadTakesLatencyPlusBeats) {
  std::vector<uint8_t> tile(256);
  sc_core::sc_time delay;
  ASSERT_TRUE(bench->runner.Run([&] {
    delay = sc_core::SC_ZERO_TIME;
    EXPECT_EQ(bench->cpu.Access(tlm::TLM_READ_COMMAND, 0x100, tile.data(), 256, &delay),
              tlm::TLM_OK_RESPONSE);
    sc_core::wait(delay);
  }));
  EXPECT_NEAR(Cycles(delay), 20 + 8, 1e-6);
}

TEST(WeightDram, BackToBackTilesStreamAtTheBeatRate) {
  std::vector<uint8_t> tile(256);
  sc_core::sc_time delay, synced;
  ASSERT_TRUE(bench->runner.Run([&] {
    // Ten requests at the same local time: one latency, then 8 beats a tile.
    delay = sc_core::SC_ZERO_TIME;
    for (int i = 0; i < 10; ++i) {
      sc_core::sc_time d = sc_core::SC_ZERO_TIME;
      bench->cpu.Access(tlm::TLM_READ_COMMAND, 256ull * i, tile.data(), 256, &d);
      delay = d;
    }
    sc_core::wait(delay);
    // A burst of four tiles in one payload takes as long as four requests.
    std::vector<uint8_t> four(1024);
    synced = sc_core::SC_ZERO_TIME;
    bench->cpu.Access(tlm::TLM_READ_COMMAND, 0, four.data(), 1024, &synced);
    sc_core::wait(synced);
  }));
  EXPECT_NEAR(Cycles(delay), 20 + 10 * 8, 1e-6);
  EXPECT_NEAR(Cycles(synced), 20 + 4 * 8, 1e-6);
  // 32 bytes a cycle at 700 MHz.
  EXPECT_NEAR(bench->dram.config().bandwidth_bytes_per_s(), 22.4e9, 1.0);
}

TEST(WeightDram, MatchesTheCyclePortItWraps) {
  // Three tiles requested in cycles 0, 1 and 30 on the cycle-level port, every beat taken at
  // once: the last beat of each is taken in the cycle the TLM view says it is done, minus one.
  WeightDram& dram = bench->dram;
  DramPortModel& port = dram.cycle_port();
  const std::vector<uint64_t> request_cycles = {0, 1, 30};
  std::vector<uint64_t> last_beat;
  size_t next = 0;
  int beats = 0;
  for (uint64_t cycle = 0; last_beat.size() < request_cycles.size() && cycle < 1000; ++cycle) {
    port.BeginCycle(cycle);
    if (next < request_cycles.size() && request_cycles[next] == cycle && port.req_ready()) {
      port.OnTileRequest(256 * next);
      ++next;
    }
    if (port.rsp_valid()) {
      port.OnBeatTaken();
      if (++beats % 8 == 0) last_beat.push_back(cycle);
    }
  }
  ASSERT_EQ(last_beat.size(), 3u);
  // The TLM view with the same request times.
  std::vector<double> done;
  std::vector<uint8_t> tile(256);
  ASSERT_TRUE(bench->runner.Run([&] {
    const sc_core::sc_time t0 = sc_core::sc_time_stamp();
    for (uint64_t c : request_cycles) {
      sc_core::sc_time d = t0 + dram.cycle() * static_cast<double>(c) - sc_core::sc_time_stamp();
      bench->cpu.Access(tlm::TLM_READ_COMMAND, 0, tile.data(), 256, &d);
      done.push_back(Cycles(sc_core::sc_time_stamp() + d - t0));
    }
    sc_core::wait(dram.cycle() * 100);
  }));
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_NEAR(done[i], last_beat[i] + 1, 1e-6) << "tile " << i;
  }
}

TEST(WeightDram, RowWritesHonourTheMaskAndReadBack) {
  std::vector<uint8_t> rows(64);
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<uint8_t>(0x40 + i);
  std::vector<uint8_t> be(16, TLM_BYTE_ENABLED);
  be[0] = be[15] = TLM_BYTE_DISABLED;  // repeats every row
  std::vector<uint8_t> tile(256, 0);
  sc_core::sc_time write_delay;
  ASSERT_TRUE(bench->runner.Run([&] {
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    std::vector<uint8_t> zeros(256, 0);
    bench->cpu.Access(tlm::TLM_WRITE_COMMAND, 0x2000, zeros.data(), 256, &d);
    sc_core::wait(d);
    write_delay = sc_core::SC_ZERO_TIME;
    EXPECT_EQ(bench->cpu.Access(tlm::TLM_WRITE_COMMAND, 0x2000, rows.data(), 64, &write_delay,
                                be.data(), 16),
              tlm::TLM_OK_RESPONSE);
    sc_core::wait(write_delay);
    d = sc_core::SC_ZERO_TIME;
    bench->cpu.Access(tlm::TLM_READ_COMMAND, 0x2000, tile.data(), 256, &d);
    sc_core::wait(d);
  }));
  EXPECT_NEAR(Cycles(write_delay), 4, 1e-6);  // a row a cycle
  for (size_t i = 0; i < 256; ++i) {
    const bool written = i < 64 && i % 16 != 0 && i % 16 != 15;
    EXPECT_EQ(tile[i], written ? rows[i] : 0) << i;
  }
  // The cycle port sees the same bytes.
  EXPECT_EQ(bench->dram.bytes().Read(0x2001, 1)[0], rows[1]);
}

TEST(WeightDram, BadAccessesGetErrorResponses) {
  std::vector<uint8_t> buf(512);
  uint8_t be[1] = {TLM_BYTE_ENABLED};
  const uint64_t errors = bench->dram.stats().errors;
  ASSERT_TRUE(bench->runner.Run([&] {
    auto access = [&](tlm::tlm_command cmd, uint64_t a, unsigned len, const uint8_t* b = nullptr,
                      unsigned bl = 0) {
      sc_core::sc_time d = sc_core::SC_ZERO_TIME;
      return bench->cpu.Access(cmd, a, buf.data(), len, &d, b, bl);
    };
    EXPECT_EQ(access(tlm::TLM_READ_COMMAND, 0x10, 256), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(access(tlm::TLM_READ_COMMAND, 1 << 20, 256), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(access(tlm::TLM_READ_COMMAND, (1 << 20) - 256, 512), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(access(tlm::TLM_READ_COMMAND, 0, 128), tlm::TLM_BURST_ERROR_RESPONSE);
    EXPECT_EQ(access(tlm::TLM_READ_COMMAND, 0, 256, be, 1), tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    EXPECT_EQ(access(tlm::TLM_WRITE_COMMAND, 8, 16), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(access(tlm::TLM_WRITE_COMMAND, 0, 20), tlm::TLM_BURST_ERROR_RESPONSE);
    EXPECT_EQ(access(tlm::TLM_IGNORE_COMMAND, 0, 16), tlm::TLM_COMMAND_ERROR_RESPONSE);
  }));
  EXPECT_EQ(bench->dram.stats().errors, errors + 8);
}

TEST(WeightDram, DebugTransportIsUntimed) {
  uint8_t out[5] = {9, 8, 7, 6, 5};
  tlm::tlm_generic_payload trans;
  trans.set_command(tlm::TLM_WRITE_COMMAND);
  trans.set_address(0x3003);
  trans.set_data_ptr(out);
  trans.set_data_length(5);
  EXPECT_EQ(bench->cpu.socket->transport_dbg(trans), 5u);
  EXPECT_EQ(bench->dram.bytes().Read(0x3007, 1)[0], 5);
  uint8_t in[5] = {};
  trans.set_command(tlm::TLM_READ_COMMAND);
  trans.set_data_ptr(in);
  EXPECT_EQ(bench->cpu.socket->transport_dbg(trans), 5u);
  EXPECT_EQ(in[0], 9);
  trans.set_address((1 << 20) - 2);  // clipped at the end
  EXPECT_EQ(bench->cpu.socket->transport_dbg(trans), 2u);
}

TEST(WeightDramConfig, BandwidthHelpersAndChecks) {
  EXPECT_EQ(WeightDramConfig::BeatBitsFor(22.4e9, 700, 16), 256);
  EXPECT_EQ(WeightDramConfig::BeatBitsFor(22.5e9, 700, 16), 512);
  EXPECT_EQ(WeightDramConfig::BeatBitsFor(1e9, 700, 8), 16);
  EXPECT_THROW(WeightDramConfig::BeatBitsFor(1e12, 700, 8), std::invalid_argument);
  WeightDramConfig c = Config();
  EXPECT_NO_THROW(c.Validate());
  c.beat_bits = 24;  // 3 bytes do not divide a 256-byte tile
  EXPECT_THROW(c.Validate(), std::invalid_argument);
  c = Config();
  c.size_bytes = 1000;
  EXPECT_THROW(c.Validate(), std::invalid_argument);
  c = Config();
  c.clock_mhz = 0;
  EXPECT_THROW(c.Validate(), std::invalid_argument);
}

// TPU v1's 8 GiB at N = 256 costs only the pages written: a tile at the very top reads back
// through the cycle port, and a masked row write keeps the bytes it masks.
TEST(DramPortModel, EightGibStoresOnlyWhatIsWritten) {
  constexpr int kN = 256;
  constexpr uint64_t kSize = uint64_t{8} << 30, kTile = uint64_t{kN} * kN;
  DramPortModel port(kN, 512, kSize, 1);
  std::mt19937_64 rng(5);
  std::vector<uint8_t> row(kN);
  for (auto& b : row) b = static_cast<uint8_t>(rng());
  std::vector<bool> mask(kN, true);
  mask[3] = false;
  port.bytes().Write(kSize - kTile, std::vector<uint8_t>(kTile, 0x5A));
  port.OnWrite(kSize - kN, row, mask);
  std::vector<uint8_t> want(kTile, 0x5A);
  for (int b = 0; b < kN; ++b) {
    if (mask[b]) want[kTile - kN + b] = row[b];
  }
  port.BeginCycle(0);
  port.OnTileRequest(kSize - kTile);
  std::vector<uint8_t> got;
  for (uint64_t cycle = 1; got.size() < kTile && cycle < 10000; ++cycle) {
    port.BeginCycle(cycle);
    if (!port.rsp_valid()) continue;
    got.insert(got.end(), port.rsp_data().begin(), port.rsp_data().end());
    port.OnBeatTaken();
  }
  EXPECT_EQ(got, want);
  EXPECT_EQ(port.bytes().Read(0, 16), std::vector<uint8_t>(16, 0));  // never written
  EXPECT_THROW(port.OnTileRequest(kSize), std::logic_error);
}

}  // namespace
}  // namespace tpu::sc

int sc_main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  tpu::sc::Testbench bench("tb");
  tpu::sc::bench = &bench;
  return RUN_ALL_TESTS();
}
