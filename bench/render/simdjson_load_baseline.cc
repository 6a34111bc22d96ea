// File: bench/render/simdjson_load_baseline.cc
// The render benchmark's floor: load a JSON file and parse it with simdjson's DOM parser, the
// fastest general JSON parser in the build, and count the top-level items so that the parse
// cannot be skipped. render must read the same file, decode every device, evaluate every
// profile and write its output; the target compares whole processes (render <= 1.2x this).
// Prints the in-process load+parse time too.
//   simdjson_load_baseline FILE
#include <chrono>
#include <cstdio>

#include "simdjson.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: simdjson_load_baseline FILE\n");
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (auto error = parser.load(argv[1]).get(doc); error) {
    std::fprintf(stderr, "%s: %s\n", argv[1], simdjson::error_message(error));
    return 1;
  }
  size_t items = 0;
  simdjson::dom::array array;
  if (doc["items"].get(array) == simdjson::SUCCESS) items = array.size();
  const auto end = std::chrono::steady_clock::now();
  std::printf("load_parse_seconds=%.3f items=%zu\n",
              std::chrono::duration<double>(end - start).count(), items);
  return 0;
}
