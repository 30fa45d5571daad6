#include "link_faults_report.h"

#include <cstdint>
#include <optional>
#include <utility>

namespace tpu::cli {
namespace {

using device::LinkErrorCounters;

struct Counter {
  const char* key;
  const char* label;
  uint64_t LinkErrorCounters::*member;
};

constexpr Counter kCounters[] = {
    {"tlps_sent", "TLPs sent", &LinkErrorCounters::tlps_sent},
    {"tlps_corrupted", "TLPs corrupted", &LinkErrorCounters::tlps_corrupted},
    {"tlps_dropped", "TLPs dropped", &LinkErrorCounters::tlps_dropped},
    {"naks", "NAKs", &LinkErrorCounters::naks},
    {"tlps_replayed", "TLPs replayed", &LinkErrorCounters::tlps_replayed},
    {"replay_timeouts", "replay timeouts", &LinkErrorCounters::replay_timeouts},
    {"retrains", "link retrainings", &LinkErrorCounters::retrains},
    {"dllps_corrupted", "ACK/NAK DLLPs corrupted", &LinkErrorCounters::dllps_corrupted},
    {"dllps_dropped", "ACK/NAK DLLPs dropped", &LinkErrorCounters::dllps_dropped},
    {"lost", "TLPs lost (must be 0)", &LinkErrorCounters::lost},
};

struct Direction {
  const char* key;
  const char* label;
  const std::optional<LinkErrorCounters>& counters;
};

std::pair<Direction, Direction> Directions(const RunStats& s) {
  return {{"host_to_device", "host -> device", s.pcie_link_to_device},
          {"device_to_host", "device -> host", s.pcie_link_from_device}};
}

}  // namespace

void AddLinkFaultFigures(Report& r, const device::PcieFaults& faults, const RunStats& stats) {
  r.Add("pcie_faults", "PCIe faults injected", faults.ToString());
  const auto [down, up] = Directions(stats);
  for (const Direction& d : {down, up}) {
    for (const Counter& c : kCounters) {
      const std::string key = std::string("pcie_") + d.key + "_" + c.key;
      const std::string label = std::string("PCIe ") + d.label + ": " + c.label;
      if (d.counters) {
        r.Add(key, label, static_cast<int64_t>((*d.counters).*c.member));
      } else {
        r.AddNotAvailable(key, label, "no simulated link");
      }
    }
  }
}

nlohmann::json LinkFaultsJson(const device::PcieFaults& faults, const RunStats& stats) {
  nlohmann::json out = {{"faults", faults.ToString()}};
  const auto [down, up] = Directions(stats);
  for (const Direction& d : {down, up}) {
    if (!d.counters) {
      out[d.key] = nullptr;
      continue;
    }
    nlohmann::json counters = nlohmann::json::object();
    for (const Counter& c : kCounters) counters[c.key] = (*d.counters).*c.member;
    out[d.key] = counters;
  }
  return out;
}

std::string LostTlpsMessage(const RunStats& stats) {
  const auto [down, up] = Directions(stats);
  std::string message;
  for (const Direction& d : {down, up}) {
    if (d.counters && d.counters->lost != 0) {
      message += (message.empty() ? "" : "; ") + std::to_string(d.counters->lost) +
                 " TLPs lost " + d.label;
    }
  }
  if (message.empty()) return "";
  return "the PCIe data link layer lost TLPs (" + message +
         "): the result cannot be trusted; this is a defect of the link model";
}

}  // namespace tpu::cli
