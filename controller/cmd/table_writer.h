// File: controller/cmd/table_writer.h
// Column-aligned plain-text tables, as kubectl prints them (upper-case headers, three spaces
// between columns).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace gpuprofile::cmd {

class TableWriter {
 public:
  explicit TableWriter(std::vector<std::string> headers) : headers_(std::move(headers)) {}
  void AddRow(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  void Print(std::ostream& out) const;

 private:
  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace gpuprofile::cmd
