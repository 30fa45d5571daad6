#include "report.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "commands.h"

namespace tpu::cli {
namespace {

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      std::ostringstream hex;
      hex << "\\u" << std::hex << std::setw(4) << std::setfill('0') << int(c);
      out += hex.str();
      continue;
    }
    out += c;
  }
  return out + "\"";
}

}  // namespace

void Report::Add(const std::string& key, const std::string& label, const std::string& value) {
  entries_.push_back({key, label, value, JsonString(value), ""});
}

void Report::Add(const std::string& key, const std::string& label, int64_t value,
                 const std::string& unit) {
  entries_.push_back({key, label, std::to_string(value), std::to_string(value), unit});
}

void Report::Add(const std::string& key, const std::string& label, double value,
                 const std::string& unit, int precision) {
  std::ostringstream text;
  // Large figures read better without a fixed number of decimals.
  if (std::fabs(value) >= 1e6) {
    text << std::setprecision(precision) << std::scientific << value;
  } else {
    text << std::setprecision(precision) << std::fixed << value;
  }
  std::ostringstream json;
  json << std::setprecision(10) << (std::isfinite(value) ? value : 0.0);
  entries_.push_back({key, label, text.str(), json.str(), unit});
}

void Report::AddNotAvailable(const std::string& key, const std::string& label,
                             const std::string& why) {
  entries_.push_back({key, label, "n/a (" + why + ")", "null", ""});
}

void Report::PrintText(std::ostream& out) const {
  size_t width = 0;
  for (const auto& e : entries_) width = std::max(width, e.label.size());
  out << title_ << "\n";
  for (const auto& e : entries_) {
    out << "  " << std::left << std::setw(int(width)) << e.label << "  " << e.text;
    if (!e.unit.empty()) out << " " << e.unit;
    out << "\n";
  }
}

void Report::PrintJson(std::ostream& out) const {
  out << "{" << JsonString("report") << ": " << JsonString(title_);
  for (const auto& e : entries_) out << ", " << JsonString(e.key) << ": " << e.json;
  out << "}\n";
}

int FinishStdout(int status) {
  std::cout.flush();
  if (!std::cout) {
    std::cerr << "tpu: error: the report could not be written to stdout (" << std::strerror(errno)
              << "); rerun with stdout going to a writable file\n";
    return 2;
  }
  return status;
}

}  // namespace tpu::cli
