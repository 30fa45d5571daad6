#include "sc_models/ports/memory_ports.h"

#include <stdexcept>
#include <string>

namespace tpu::sc {
namespace {

bool Draw(std::mt19937_64& rng, double prob) {
  return prob >= 1.0 || std::uniform_real_distribution<double>(0.0, 1.0)(rng) < prob;
}

uint64_t DrawLatency(std::mt19937_64& rng, const PortTiming& t) {
  if (t.max_latency <= t.min_latency) return t.min_latency;
  return std::uniform_int_distribution<int>(t.min_latency, t.max_latency)(rng);
}

}  // namespace

HostPortModel::HostPortModel(model::HostMemory* memory, int beat_bytes, uint64_t seed)
    : memory_(memory), beat_bytes_(beat_bytes), rng_(seed) {}

void HostPortModel::Clear() {
  pending_.clear();
  rsp_valid_ = false;
}

void HostPortModel::BeginCycle(uint64_t cycle) {
  cycle_ = cycle;
  req_ready_ = Draw(rng_, timing_.ready_prob);
  rsp_valid_ = !pending_.empty() && pending_.front().due <= cycle_ && Draw(rng_, timing_.rsp_prob);
}

void HostPortModel::OnRequest(bool write, uint64_t addr, const std::vector<uint8_t>& wdata,
                              const std::vector<bool>& mask) {
  if (addr % beat_bytes_ != 0) {
    throw std::logic_error("host request at " + std::to_string(addr) + " is not beat aligned");
  }
  if (write) {
    for (int b = 0; b < beat_bytes_; ++b) {
      if (mask[b]) {
        memory_->Write(addr + b, &wdata[b], 1);
        ++bytes_written_;
      }
    }
    return;
  }
  Pending p{cycle_ + DrawLatency(rng_, timing_), memory_->Faults(addr, beat_bytes_),
            std::vector<uint8_t>(beat_bytes_, 0)};
  if (!p.error) memory_->Read(addr, p.data.data(), beat_bytes_);
  // In order: never due before the read ahead of it.
  if (!pending_.empty() && p.due < pending_.back().due) p.due = pending_.back().due;
  pending_.push_back(std::move(p));
  bytes_read_ += beat_bytes_;
}

void HostPortModel::OnResponseTaken() {
  if (!rsp_valid_) throw std::logic_error("host response taken while none was offered");
  pending_.pop_front();
  rsp_valid_ = false;
}

DramPortModel::DramPortModel(int n, int beat_bits, uint64_t size, uint64_t seed)
    : n_(n), beat_bytes_(beat_bits / 8), bytes_(size), rng_(seed) {}

void DramPortModel::Clear() {
  beats_.clear();
  rsp_valid_ = false;
}

void DramPortModel::BeginCycle(uint64_t cycle) {
  cycle_ = cycle;
  req_ready_ = Draw(rng_, timing_.ready_prob);
  wr_ready_ = Draw(rng_, timing_.ready_prob);
  rsp_valid_ = !beats_.empty() && beats_.front().due <= cycle_ && Draw(rng_, timing_.rsp_prob);
}

void DramPortModel::OnTileRequest(uint64_t addr) {
  const uint64_t tile_bytes = static_cast<uint64_t>(n_) * n_;
  if (addr % tile_bytes != 0 || addr + tile_bytes > bytes_.size()) {
    throw std::logic_error("weight DRAM tile request at " + std::to_string(addr) +
                           " is unaligned or out of range");
  }
  uint64_t due = cycle_ + DrawLatency(rng_, timing_);
  if (!beats_.empty() && due < beats_.back().due) due = beats_.back().due;
  for (uint64_t off = 0; off < tile_bytes; off += beat_bytes_) {
    beats_.push_back({due, bytes_.Read(addr + off, beat_bytes_)});
  }
  ++tiles_;
}

void DramPortModel::OnBeatTaken() {
  if (!rsp_valid_) throw std::logic_error("DRAM beat taken while none was offered");
  beats_.pop_front();
  rsp_valid_ = false;
}

void DramPortModel::OnWrite(uint64_t addr, const std::vector<uint8_t>& data,
                            const std::vector<bool>& mask) {
  if (addr % n_ != 0) {
    throw std::logic_error("weight DRAM write at " + std::to_string(addr) + " is unaligned");
  }
  if (addr + n_ > bytes_.size()) {
    throw std::logic_error("weight DRAM write of the row at " + std::to_string(addr) +
                           " is out of range");
  }
  std::vector<uint8_t> row = bytes_.Read(addr, n_);  // masked bytes keep their value
  for (int b = 0; b < n_; ++b) {
    if (mask[b]) row[b] = data[b];
  }
  bytes_.Write(addr, row);
}

}  // namespace tpu::sc
