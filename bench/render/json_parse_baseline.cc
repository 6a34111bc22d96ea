// File: bench/render/json_parse_baseline.cc
// The render benchmark's baseline: read a JSON file and parse it into an nlohmann::json DOM, as
// a tool that simply loads `kubectl get -o json` output would. Prints the parse time (the file
// read excluded) and the number of top-level items, so that the work cannot be optimised away.
//   json_parse_baseline FILE
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "nlohmann/json.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: json_parse_baseline FILE\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::cerr << "cannot open " << argv[1] << "\n";
    return 1;
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  const auto start = std::chrono::steady_clock::now();
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  const auto end = std::chrono::steady_clock::now();
  if (doc.is_discarded()) {
    std::cerr << "invalid JSON\n";
    return 1;
  }
  const size_t items = doc.contains("items") ? doc["items"].size() : doc.size();
  std::printf("parse_seconds=%.3f items=%zu\n",
              std::chrono::duration<double>(end - start).count(), items);
  return 0;
}
