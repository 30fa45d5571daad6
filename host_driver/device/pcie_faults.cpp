#include "device/pcie_faults.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace tpu::device {
namespace {

// The most a probability may be: a link losing more than every other packet does not train.
constexpr double kMaxProbability = 0.5;

std::string Trimmed(const std::string& s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

[[noreturn]] void Fail(const std::string& what) {
  throw std::invalid_argument(what + " (expected " + kPcieFaultsForm + ")");
}

double ParseProbability(const std::string& key, const std::string& value) {
  char* end = nullptr;
  const double p = value.empty() ? NAN : std::strtod(value.c_str(), &end);
  if (value.empty() || end != value.c_str() + value.size() || !std::isfinite(p) || p < 0.0 ||
      p > kMaxProbability) {
    Fail(key + "=" + value + ": a probability is a number from 0 to 0.5, e.g. " + key +
         "=1e-3");
  }
  return p;
}

uint64_t ParseSeed(const std::string& value) {
  if (value.empty() || value.size() > 19 ||
      value.find_first_not_of("0123456789") != std::string::npos) {
    Fail("seed=" + value + ": the seed is a whole number, e.g. seed=7");
  }
  return std::stoull(value);
}

}  // namespace

const char* const kPcieFaultsForm =
    "KEY=VALUE[,KEY=VALUE...] with KEY in tlp_corrupt, tlp_drop, dllp_corrupt, dllp_drop, "
    "cpl_ur, cpl_ca, cpl_poison, cpl_drop (probabilities 0..0.5) and seed (a whole number), e.g. "
    "tlp_corrupt=1e-3,tlp_drop=1e-3,dllp_corrupt=1e-3,dllp_drop=1e-3,seed=7";

bool PcieFaults::any() const {
  return tlp_corrupt > 0 || tlp_drop > 0 || dllp_corrupt > 0 || dllp_drop > 0 ||
         completion_any();
}

bool PcieFaults::completion_any() const {
  return cpl_ur > 0 || cpl_ca > 0 || cpl_poison > 0 || cpl_drop > 0;
}

std::string PcieFaults::ToString() const {
  std::ostringstream s;
  s << "tlp_corrupt=" << tlp_corrupt << ",tlp_drop=" << tlp_drop
    << ",dllp_corrupt=" << dllp_corrupt << ",dllp_drop=" << dllp_drop;
  if (completion_any()) {
    s << ",cpl_ur=" << cpl_ur << ",cpl_ca=" << cpl_ca << ",cpl_poison=" << cpl_poison
      << ",cpl_drop=" << cpl_drop;
  }
  s << ",seed=" << seed;
  return s.str();
}

PcieFaults ParsePcieFaults(const std::string& text) {
  if (Trimmed(text).empty()) Fail("'" + text + "' is empty");
  PcieFaults faults;
  std::set<std::string> seen;
  std::istringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    item = Trimmed(item);
    const auto eq = item.find('=');
    if (eq == std::string::npos) Fail("'" + item + "' is not KEY=VALUE");
    const std::string key = Trimmed(item.substr(0, eq));
    const std::string value = Trimmed(item.substr(eq + 1));
    if (!seen.insert(key).second) Fail("'" + key + "' is given twice");
    const std::pair<const char*, double*> probabilities[] = {
        {"tlp_corrupt", &faults.tlp_corrupt}, {"tlp_drop", &faults.tlp_drop},
        {"dllp_corrupt", &faults.dllp_corrupt}, {"dllp_drop", &faults.dllp_drop},
        {"cpl_ur", &faults.cpl_ur}, {"cpl_ca", &faults.cpl_ca},
        {"cpl_poison", &faults.cpl_poison}, {"cpl_drop", &faults.cpl_drop}};
    const auto it = std::find_if(std::begin(probabilities), std::end(probabilities),
                                 [&](const auto& p) { return key == p.first; });
    if (it != std::end(probabilities)) {
      *it->second = ParseProbability(key, value);
    } else if (key == "seed") {
      faults.seed = ParseSeed(value);
    } else {
      Fail("unknown key '" + key + "'");
    }
  }
  if (text.back() == ',') Fail("'" + text + "' ends with a comma");
  if (faults.cpl_ur + faults.cpl_ca + faults.cpl_poison + faults.cpl_drop > kMaxProbability) {
    Fail("cpl_ur + cpl_ca + cpl_poison + cpl_drop is above 0.5");
  }
  return faults;
}

LinkErrorCounters LinkErrorCounters::Since(const LinkErrorCounters& e) const {
  LinkErrorCounters d;
  d.tlps_sent = tlps_sent - e.tlps_sent;
  d.tlps_corrupted = tlps_corrupted - e.tlps_corrupted;
  d.tlps_dropped = tlps_dropped - e.tlps_dropped;
  d.naks = naks - e.naks;
  d.tlps_replayed = tlps_replayed - e.tlps_replayed;
  d.replay_timeouts = replay_timeouts - e.replay_timeouts;
  d.retrains = retrains - e.retrains;
  d.dllps_corrupted = dllps_corrupted - e.dllps_corrupted;
  d.dllps_dropped = dllps_dropped - e.dllps_dropped;
  d.lost = lost - e.lost;
  return d;
}

LinkErrorCounters& LinkErrorCounters::operator+=(const LinkErrorCounters& o) {
  tlps_sent += o.tlps_sent;
  tlps_corrupted += o.tlps_corrupted;
  tlps_dropped += o.tlps_dropped;
  naks += o.naks;
  tlps_replayed += o.tlps_replayed;
  replay_timeouts += o.replay_timeouts;
  retrains += o.retrains;
  dllps_corrupted += o.dllps_corrupted;
  dllps_dropped += o.dllps_dropped;
  lost += o.lost;
  return *this;
}

}  // namespace tpu::device
