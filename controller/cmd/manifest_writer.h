// File: controller/cmd/manifest_writer.h
// Prints Kubernetes objects the way `kubectl get -o yaml|json` users read them, deterministic
// to the byte: a multi-document YAML stream (block style, lists not indented under their key,
// as kubectl prints them) or one JSON `List`. Key order is the objects' own (ordered_json).
// Strings that YAML 1.1 could read as something else (numbers, booleans, null, anything
// starting with a digit or an indicator, or holding ": " / " #") are double-quoted, so that
// reading the output back gives exactly the same JSON.
// Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "nlohmann/json.hpp"

namespace gpuprofile::cmd {

// One YAML document per object, separated by "---" lines.
std::string ToYamlStream(const std::vector<nlohmann::ordered_json>& objects);

// {"apiVersion": "v1", "kind": "List", "items": [...]}, indented by 2, with a final newline.
std::string ToJsonList(const std::vector<nlohmann::ordered_json>& objects);

// Exposed for tests: whether `text` may be written as a plain (unquoted) YAML scalar.
bool IsPlainYamlSafe(const std::string& text);

}  // namespace gpuprofile::cmd
