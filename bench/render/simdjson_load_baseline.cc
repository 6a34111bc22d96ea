// File: bench/render/simdjson_load_baseline.cc
// The render benchmark's floor: load a JSON file and parse it with simdjson's DOM parser, the
// fastest general JSON parser in the build, and count the top-level items so that the parse
// cannot be skipped. render must read the same file, decode every device, evaluate every
// profile and write its output; the target compares whole processes (render <= 1.2x this).
// With --walk it then visits every value of the document once (each string's view taken, each
// number and boolean read) and keeps nothing: the least any program that reads every device
// can do after parsing, so that the distance from it to render is render's own work.
// Prints the in-process time too.
//   simdjson_load_baseline [--walk] FILE
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
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
  const bool walk = argc == 3 && std::strcmp(argv[1], "--walk") == 0;
  if (argc != 2 && !walk) {
    std::fprintf(stderr, "usage: simdjson_load_baseline [--walk] FILE\n");
    return 2;
  }
  const char* path = argv[argc - 1];
  const auto start = std::chrono::steady_clock::now();
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (auto error = parser.load(path).get(doc); error) {
    std::fprintf(stderr, "%s: %s\n", path, simdjson::error_message(error));
    return 1;
  }
  uint64_t result = 0;  // the items, or the walk's sum
  if (walk) {
    Visit(doc, &result);
  } else {
    simdjson::dom::array array;
    if (doc["items"].get(array) == simdjson::SUCCESS) result = array.size();
  }
  const auto end = std::chrono::steady_clock::now();
  std::printf("%s_seconds=%.3f %s=%llu\n", walk ? "load_parse_walk" : "load_parse",
              std::chrono::duration<double>(end - start).count(), walk ? "sum" : "items",
              static_cast<unsigned long long>(result));
  return 0;
}
