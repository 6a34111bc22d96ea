// File: controller/cmd/table_writer.cc
#include "controller/cmd/table_writer.h"

#include <algorithm>

namespace gpuprofile::cmd {

void TableWriter::Print(std::ostream& out) const {
  std::vector<size_t> widths(headers_.size());
  for (size_t c = 0; c < headers_.size(); ++c) widths[c] = headers_[c].size();
  for (const auto& row : rows_) {
    for (size_t c = 0; c < row.size() && c < widths.size(); ++c) {
      widths[c] = std::max(widths[c], row[c].size());
    }
  }
  auto print_row = [&](const std::vector<std::string>& cells) {
    for (size_t c = 0; c < cells.size() && c < widths.size(); ++c) {
      out << cells[c];
      if (c + 1 < cells.size()) out << std::string(widths[c] - cells[c].size() + 3, ' ');
    }
    out << "\n";
  };
  print_row(headers_);
  for (const auto& row : rows_) print_row(row);
}

}  // namespace gpuprofile::cmd
