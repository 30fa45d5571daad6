// DMA over the modeled PCIe link (docs/pcie_link.md): the device-side endpoint reads 16 MiB of
// host memory (host -> device: MRd of 512 bytes up, CplDs of 256 bytes down, 32 reads in
// flight) and then writes 16 MiB back (device -> host: MWr of 256 bytes) over gen3x16 with
// MPS 256, through the root complex. Prints the payload bandwidth achieved, as a fraction of
// the link's payload limit (raw rate x 256 / (256 + 20 + 2): the target is >= 0.95) and of the
// raw link rate, checks the data, and reports the simulation speed. A second system does the
// same under the fault goal of docs/pcie_link.md section 8 (1% of TLPs and DLLPs corrupted,
// 0.1% dropped, both ways) and prints its data link layer's counters and the throughput loss
// against the two predictions of section 8.4.
#include <chrono>
#include <cstdio>
#include <random>
#include <systemc>
#include <vector>

#include "sc_models/pcie_endpoint.h"
#include "sc_models/pcie_link.h"
#include "sc_models/root_complex.h"

namespace {

using tpu::sc::CompletionStatus;

constexpr uint64_t kBytes = 16ull << 20;
constexpr uint64_t kSource = 0x4000'0000;  // host buffer read by the device
constexpr uint64_t kSink = 0x8000'0000;    // host buffer written by the device

class System : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(System);
  System(sc_core::sc_module_name name, const tpu::sc::PcieLinkConfig& config)
      : sc_core::sc_module(name),
        rc("rc", RcConfig(config)),
        link("link", config),
        ep("ep", EpConfig(config)) {
    rc.tx.bind(link.downstream.in);
    link.downstream.out.bind(ep.rx);
    ep.tx.bind(link.upstream.in);
    link.upstream.out.bind(rc.rx);
    SC_THREAD(Run);
  }

  static tpu::sc::RootComplexConfig RcConfig(const tpu::sc::PcieLinkConfig& link) {
    tpu::sc::RootComplexConfig c;
    c.max_payload = link.max_payload;
    c.max_read_request = link.max_read_request;
    return c;
  }
  static tpu::sc::PcieEndpointConfig EpConfig(const tpu::sc::PcieLinkConfig& link) {
    tpu::sc::PcieEndpointConfig c;
    c.max_payload = link.max_payload;
    c.max_read_request = link.max_read_request;
    c.max_outstanding_reads = 32;
    return c;
  }

  void Run() {
    std::vector<uint8_t> buffer(kBytes);
    sc_core::sc_time t0 = sc_core::sc_time_stamp();
    read_status = ep.ReadHost(kSource, buffer.data(), kBytes);
    read_time = sc_core::sc_time_stamp() - t0;
    read_ok = read_status == CompletionStatus::kSuccess && buffer == expected;
    for (auto& b : buffer) b = static_cast<uint8_t>(~b);
    write_start = sc_core::sc_time_stamp();
    ep.WriteHost(kSink, buffer.data(), kBytes);
    written = std::move(buffer);
  }

  // After the simulation: the last MWr's delivery ends the write.
  void Finish() {
    write_time = link.upstream.stats().last_delivery - write_start;
    write_ok = rc.memory().Read(kSink, kBytes) == written;
  }

  tpu::sc::RootComplex rc;
  tpu::sc::PcieLink link;
  tpu::sc::PcieEndpoint ep;
  std::vector<uint8_t> expected;
  std::vector<uint8_t> written;
  sc_core::sc_time write_start;
  CompletionStatus read_status = CompletionStatus::kSuccess;
  sc_core::sc_time read_time, write_time;
  bool read_ok = false, write_ok = false;
};

void Report(const char* what, const sc_core::sc_time& t, const tpu::sc::LinkTiming& timing,
            uint64_t tlps, bool ok) {
  const double achieved = kBytes / t.to_seconds();
  const double limit = timing.payload_limit_bytes_per_s(12);
  const double raw = timing.raw_rate_bytes_per_s();
  std::printf("  %s: %llu bytes in %.3f us (%llu TLPs carrying data), data %s\n", what,
              static_cast<unsigned long long>(kBytes), t.to_seconds() * 1e6,
              static_cast<unsigned long long>(tlps), ok ? "checked" : "MISMATCH");
  std::printf("    achieved %.3f GB/s = %.4f of the payload limit %.3f GB/s  [target >= 0.95]\n",
              achieved / 1e9, achieved / limit, limit / 1e9);
  std::printf("    = %.4f of the raw link rate %.3f GB/s\n", achieved / raw, raw / 1e9);
}

// The faulty system's loss in one direction against the clean one's, and its predictions.
void ReportFaults(const char* what, const sc_core::sc_time& clean, const sc_core::sc_time& faulty,
                  const tpu::sc::PcieLinkDirection& clean_link,
                  const tpu::sc::PcieLinkDirection& link, const tpu::sc::PcieLinkConfig& config,
                  bool ok) {
  const tpu::device::LinkErrorCounters& e = link.errors();
  const tpu::sc::LinkTiming& timing = link.timing();
  const double tlp_ns = timing.tlp_time_ns(12, config.max_payload);
  const double clean_ns = clean.to_seconds() * 1e9;
  const double measured = faulty.to_seconds() / clean.to_seconds() - 1.0;
  // The replays' wire time: the wire bytes beyond the clean run's (TLPs of every size).
  const double replayed_bytes =
      double(link.stats().wire_bytes) - double(clean_link.stats().wire_bytes);
  const double from_replays =
      (replayed_bytes * timing.byte_time_ns() + double(e.retrains) * config.retrain_ns) / clean_ns;
  const double p = config.faults.tlp_corrupt + config.faults.tlp_drop;
  const double window =
      (2 * config.latency_ns + tpu::sc::kDllpWireBytes * timing.byte_time_ns()) / tlp_ns + 2.0;
  std::printf("  %s: %.3f us (clean %.3f us), data %s\n", what, faulty.to_seconds() * 1e6,
              clean_ns / 1e3, ok ? "checked" : "MISMATCH");
  std::printf("    TLPs %llu sent, %llu corrupted, %llu dropped, %llu NAKs, %llu replayed, %llu "
              "replay timeouts, %llu retrains; DLLPs %llu corrupted, %llu dropped; %llu lost\n",
              (unsigned long long)e.tlps_sent, (unsigned long long)e.tlps_corrupted,
              (unsigned long long)e.tlps_dropped, (unsigned long long)e.naks,
              (unsigned long long)e.tlps_replayed, (unsigned long long)e.replay_timeouts,
              (unsigned long long)e.retrains, (unsigned long long)e.dllps_corrupted,
              (unsigned long long)e.dllps_dropped, (unsigned long long)e.lost);
  std::printf("    loss %.4f; predicted from the replays %.4f, from the rates p W / (1 - p) = %.4f "
              "(W = %.1f)\n",
              measured, from_replays, p * window / (1 - p), window);
}

}  // namespace

int sc_main(int, char**) {
  const tpu::sc::PcieLinkConfig config = tpu::sc::PcieLinkConfig::FromName("gen3x16");
  tpu::sc::PcieLinkConfig faulty_config = config;
  faulty_config.faults = tpu::device::ParsePcieFaults(
      "tlp_corrupt=1e-2,tlp_drop=1e-3,dllp_corrupt=1e-2,dllp_drop=1e-3,seed=7");
  System system("system", config);
  System faulty("faulty", faulty_config);
  system.expected.resize(kBytes);
  std::mt19937_64 rng(16);
  for (auto& b : system.expected) b = static_cast<uint8_t>(rng());
  system.rc.memory().Write(kSource, system.expected);
  faulty.expected = system.expected;
  faulty.rc.memory().Write(kSource, faulty.expected);

  const auto wall0 = std::chrono::steady_clock::now();
  sc_core::sc_start();
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  system.Finish();
  faulty.Finish();

  const tpu::sc::LinkTiming& timing = system.link.timing();
  std::printf(
      "PCIe link model: DMA of 16 MiB at %s, MPS %u, MRRS %u, %u reads in flight, "
      "latency %.0f ns\n",
      config.Name().c_str(), config.max_payload, config.max_read_request, 32u, config.latency_ns);
  std::printf(
      "  raw link rate %.3f GB/s (%.1f GT/s x %d lanes after the line code); per TLP: "
      "%u bytes of overhead with a 3-DW header + %.1f of DLLP share\n",
      timing.raw_rate_bytes_per_s() / 1e9, tpu::sc::TransferRateGts(config.generation),
      config.lanes, timing.tlp_overhead_bytes(12), timing.dllp_bytes_per_tlp());
  Report("host -> device (device reads: CplD)", system.read_time, timing,
         system.rc.stats().completions_sent, system.read_ok);
  Report("device -> host (device writes: MWr)", system.write_time, timing,
         system.ep.stats().write_requests, system.write_ok);
  const uint64_t tlps = system.link.downstream.stats().tlps + system.link.upstream.stats().tlps;
  std::printf("  simulation: %.2f s wall (both systems), %.0f TLPs/s\n", wall, 2 * tlps / wall);
  std::printf("The same under faults (%s):\n", faulty_config.faults.ToString().c_str());
  ReportFaults("host -> device (CplD)", system.read_time, faulty.read_time,
               system.link.downstream, faulty.link.downstream, faulty_config, faulty.read_ok);
  ReportFaults("device -> host (MRd, MWr)", system.write_time, faulty.write_time,
               system.link.upstream, faulty.link.upstream, faulty_config, faulty.write_ok);
  const bool ok = system.read_ok && system.write_ok && faulty.read_ok && faulty.write_ok &&
                  faulty.link.downstream.errors().lost + faulty.link.upstream.errors().lost == 0;
  return ok ? 0 : 1;
}
