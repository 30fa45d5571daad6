#include "host_if/dma_clients.h"

#include <sstream>

namespace tpu::tb {
namespace {

bool Draw(std::mt19937_64& rng, double p) {
  return p >= 1.0 || std::uniform_real_distribution<double>(0.0, 1.0)(rng) < p;
}

}  // namespace

ReadClient::ReadClient(RootComplex* rc, int max_read_req, int beat_bytes, uint64_t seed)
    : rc_(rc),
      max_read_req_(max_read_req),
      beat_bytes_(static_cast<uint64_t>(beat_bytes)),
      rng_(seed) {}

void ReadClient::Read(uint64_t addr, uint64_t length, bool mark_last) {
  const uint64_t first = addr & ~(beat_bytes_ - 1);
  const uint64_t last = (addr + length - 1) & ~(beat_bytes_ - 1);
  for (uint64_t b = first; b <= last; b += beat_bytes_) {
    queue_.push_back({b, mark_last && b == last});
  }
}

void ReadClient::Flush() {
  queue_.clear();
  expected_.clear();
  offering_ = false;
}

void ReadClient::BeginCycle() {
  if (!offering_ && !queue_.empty()) offering_ = Draw(rng_, req_prob_);
  rsp_ready_ = Draw(rng_, rsp_prob_);
}

void ReadClient::OnReqTaken() {
  expected_.push_back(queue_.front().addr);
  queue_.pop_front();
  offering_ = false;
}

bool ReadClient::ErrorRequired(uint64_t beat) const {
  return rc_->memory().Faults(beat, beat_bytes_) || rc_->Silent(beat, beat_bytes_);
}

bool ReadClient::ErrorAllowed(uint64_t beat) const {
  const uint64_t block = beat & ~(static_cast<uint64_t>(max_read_req_) - 1);
  return rc_->memory().Faults(block, max_read_req_) || rc_->Silent(block, max_read_req_);
}

void ReadClient::OnResponse(const DmaBeat& data, bool error) {
  std::ostringstream s;
  if (expected_.empty()) {
    mismatches_.push_back("response without a request");
    return;
  }
  const uint64_t beat = expected_.front();
  expected_.pop_front();
  s << std::hex << "beat 0x" << beat << ": ";
  if (error) {
    ++beats_error_;
    if (!ErrorAllowed(beat)) mismatches_.push_back(s.str() + "unexpected error");
    return;
  }
  ++beats_ok_;
  if (ErrorRequired(beat)) {
    mismatches_.push_back(s.str() + "no error for a failing beat");
    return;
  }
  const DmaBeat want = rc_->memory().Read(beat, beat_bytes_);
  if (want != data) {
    s << "data";
    for (size_t b = 0; b < data.size() && b < want.size(); ++b) {
      s << ' ' << int{data[b]} << (data[b] == want[b] ? "" : "!");
    }
    mismatches_.push_back(s.str());
  }
}

WriteClient::WriteClient(model::HostMemory* expected, int beat_bytes, uint64_t seed)
    : expected_(expected), beat_bytes_(static_cast<uint64_t>(beat_bytes)), rng_(seed) {}

void WriteClient::Write(uint64_t addr, const std::vector<uint8_t>& bytes) {
  const uint64_t end = addr + bytes.size();
  for (uint64_t b = addr & ~(beat_bytes_ - 1); b < end; b += beat_bytes_) {
    Beat beat{b, DmaBeat(beat_bytes_), 0};
    for (uint64_t i = 0; i < beat_bytes_; ++i) {
      if (b + i >= addr && b + i < end) {
        beat.data[i] = bytes[b + i - addr];
        beat.mask |= uint64_t{1} << i;
      } else {
        beat.data[i] = static_cast<uint8_t>(rng_());  // must not be written
      }
    }
    queue_.push_back(beat);
  }
  expected_->Write(addr, bytes);
}

void WriteClient::WriteBeat(uint64_t beat_addr, const DmaBeat& data, uint64_t mask) {
  queue_.push_back({beat_addr, data, mask});
  for (uint64_t i = 0; i < beat_bytes_; ++i) {
    if (mask >> i & 1) expected_->Write(beat_addr + i, &data[i], 1);
  }
}

void WriteClient::Flush() {
  queue_.clear();
  offering_ = false;
}

void WriteClient::BeginCycle() {
  if (!offering_ && !queue_.empty()) offering_ = Draw(rng_, req_prob_);
}

void WriteClient::OnTaken() {
  queue_.pop_front();
  offering_ = false;
  ++beats_;
}

}  // namespace tpu::tb
