// File: bench/render/simdjson_walk_baseline.cc
// A second yardstick for the render benchmark: simdjson_load_baseline plus one visit of every
// value of the document (each string's view taken, each number and boolean read), and nothing
// kept. It is the least any program that reads every device of the file can do after parsing
// it: the distance from it to render is render's own work (decoding into the device model,
// the profiles, the node groups, the output); the distance from simdjson_load_baseline to it
// is what reading the parsed document costs.
//   simdjson_walk_baseline FILE
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string_view>

#include "simdjson.h"

namespace {

// Folds every value under `element` into *sum, so that no read can be skipped.
void Visit(simdjson::dom::element element, uint64_t* sum) {
  switch (element.type()) {
    case simdjson::dom::element_type::ARRAY: {
      const simdjson::dom::array array(element);
      for (simdjson::dom::element item : array) Visit(item, sum);
      break;
    }
    case simdjson::dom::element_type::OBJECT: {
      const simdjson::dom::object object(element);
      for (simdjson::dom::key_value_pair member : object) {
        *sum += member.key.size();
        Visit(member.value, sum);
      }
      break;
    }
    case simdjson::dom::element_type::STRING:
      *sum += std::string_view(element).size();
      break;
    case simdjson::dom::element_type::INT64:
      *sum += static_cast<uint64_t>(int64_t(element));
      break;
    case simdjson::dom::element_type::UINT64:
      *sum += uint64_t(element);
      break;
    case simdjson::dom::element_type::DOUBLE:
      *sum += static_cast<uint64_t>(double(element));
      break;
    case simdjson::dom::element_type::BOOL:
      *sum += bool(element) ? 1 : 0;
      break;
    case simdjson::dom::element_type::NULL_VALUE:
      break;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: simdjson_walk_baseline FILE\n");
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (auto error = parser.load(argv[1]).get(doc); error) {
    std::fprintf(stderr, "%s: %s\n", argv[1], simdjson::error_message(error));
    return 1;
  }
  uint64_t sum = 0;
  Visit(doc, &sum);
  const auto end = std::chrono::steady_clock::now();
  std::printf("load_parse_walk_seconds=%.3f sum=%llu\n",
              std::chrono::duration<double>(end - start).count(),
              static_cast<unsigned long long>(sum));
  return 0;
}
