// The report printed after every run: named figures in order, rendered for people (aligned
// text) or for tools (one JSON object). Commands fill it; they never print figures themselves.
#ifndef TPU_HOST_DRIVER_CLI_REPORT_H_
#define TPU_HOST_DRIVER_CLI_REPORT_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace tpu::cli {

class Report {
 public:
  explicit Report(std::string title) : title_(std::move(title)) {}

  // `key` is snake_case (the JSON name); `label` is what people read; `unit` may be empty.
  void Add(const std::string& key, const std::string& label, const std::string& value);
  void Add(const std::string& key, const std::string& label, int64_t value,
           const std::string& unit = "");
  void Add(const std::string& key, const std::string& label, double value,
           const std::string& unit = "", int precision = 4);
  // A figure this run cannot give (e.g. cycles on the golden backend): "n/a (why)" in text,
  // null in JSON.
  void AddNotAvailable(const std::string& key, const std::string& label, const std::string& why);

  void PrintText(std::ostream& out) const;
  void PrintJson(std::ostream& out) const;

 private:
  struct Entry {
    std::string key, label, text, json, unit;
  };
  std::string title_;
  std::vector<Entry> entries_;
};

}  // namespace tpu::cli

#endif  // TPU_HOST_DRIVER_CLI_REPORT_H_
