// File: e2e/emulator/structural_schema.cc
#include "e2e/emulator/structural_schema.h"

#include <memory>
#include <regex>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"

namespace gpuprofile::e2e {
namespace {

// The compiled `pattern`, or null when it is not a valid ECMAScript regex. Compiling a
// std::regex costs far more than matching it, and every write of a custom resource validates the
// same few patterns: under the operator benchmark's churn, compiling them on every status patch
// took most of the emulator's core. Thread-safe.
std::shared_ptr<const std::regex> CompiledPattern(const std::string& pattern) {
  static absl::Mutex mu(absl::kConstInit);
  static auto* const cache =
      new absl::flat_hash_map<std::string, std::shared_ptr<const std::regex>>();
  absl::MutexLock lock(&mu);
  if (auto it = cache->find(pattern); it != cache->end()) return it->second;
  std::shared_ptr<const std::regex> compiled;
  try {
    compiled = std::make_shared<const std::regex>(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error&) {
    // An invalid pattern is the CRD's problem; kube-apiserver rejects such CRDs.
  }
  if (cache->size() >= 4096) cache->clear();  // CRDs come and go in tests; stay bounded
  (*cache)[pattern] = compiled;
  return compiled;
}

std::string Join(const std::string& path, const std::string& key) {
  return path.empty() ? key : absl::StrCat(path, ".", key);
}

std::string TypeOf(const nlohmann::json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "boolean";
  if (v.is_number_integer() || v.is_number_unsigned()) return "integer";
  if (v.is_number()) return "number";
  if (v.is_string()) return "string";
  if (v.is_array()) return "array";
  return "object";
}

bool TypeMatches(const std::string& want, const nlohmann::json& v) {
  if (want.empty()) return true;
  std::string got = TypeOf(v);
  if (want == "number") return got == "number" || got == "integer";
  if (want == "integer" && v.is_number_float()) {
    double d = v.get<double>();
    return d == static_cast<double>(static_cast<long long>(d));
  }
  return want == got;
}

double Number(const nlohmann::json& v) { return v.get<double>(); }

std::string Num(const nlohmann::json& v) { return v.dump(); }

class Walker {
 public:
  SchemaOutcome outcome;

  void Apply(const nlohmann::json& schema, nlohmann::json& value, const std::string& path) {
    if (!schema.is_object()) return;
    if (value.is_null()) {
      if (!schema.value("nullable", false)) {
        // kube-openapi reports null for a typed field as a type error.
        std::string type = schema.value("type", "");
        if (!type.empty()) {
          outcome.errors.push_back(FieldInvalid(
              path, value, absl::StrCat(path, " in body must be of type ", type, ": \"null\"")));
        }
      }
      return;
    }
    bool int_or_string = schema.value("x-kubernetes-int-or-string", false);
    std::string type = schema.value("type", "");
    if (int_or_string) {
      if (!value.is_string() && !value.is_number_integer() && !value.is_number_unsigned()) {
        outcome.errors.push_back(
            FieldInvalid(path, value,
                         absl::StrCat(path, " in body must be of type integer,string: \"",
                                      TypeOf(value), "\"")));
        return;
      }
    } else if (!TypeMatches(type, value)) {
      outcome.errors.push_back(FieldInvalid(
          path, value,
          absl::StrCat(path, " in body must be of type ", type, ": \"", TypeOf(value), "\"")));
      return;
    }
    if (value.is_object()) ApplyObject(schema, value, path);
    if (value.is_array()) ApplyArray(schema, value, path);
    CheckScalar(schema, value, path);
  }

 private:
  void ApplyObject(const nlohmann::json& schema, nlohmann::json& value, const std::string& path) {
    const nlohmann::json* props = nullptr;
    if (auto p = schema.find("properties"); p != schema.end() && p->is_object()) props = &*p;
    const nlohmann::json* additional = nullptr;
    if (auto a = schema.find("additionalProperties"); a != schema.end() && a->is_object()) {
      additional = &*a;
    }
    bool preserve =
        schema.value("x-kubernetes-preserve-unknown-fields", false) ||
        (schema.contains("additionalProperties") && schema["additionalProperties"].is_boolean() &&
         schema["additionalProperties"].get<bool>());
    // Defaults first (apiextensions defaults before it validates).
    if (props) {
      for (auto& [key, sub] : props->items()) {
        if (!value.contains(key) && sub.is_object() && sub.contains("default")) {
          value[key] = sub["default"];
        }
      }
    }
    std::vector<std::string> keys;
    for (auto& [key, v] : value.items()) keys.push_back(key);
    for (const std::string& key : keys) {
      if (props && props->contains(key)) {
        Apply((*props)[key], value[key], Join(path, key));
      } else if (additional) {
        Apply(*additional, value[key], Join(path, key));
      } else if (!preserve) {
        outcome.pruned_fields.push_back(Join(path, key));
        value.erase(key);
      }
    }
    if (auto req = schema.find("required"); req != schema.end() && req->is_array()) {
      for (const auto& r : *req) {
        if (r.is_string() && !value.contains(r.get<std::string>())) {
          outcome.errors.push_back(FieldRequired(Join(path, r.get<std::string>())));
        }
      }
    }
    if (auto m = schema.find("maxProperties");
        m != schema.end() && m->is_number() && value.size() > m->get<size_t>()) {
      outcome.errors.push_back(FieldTooMany(path, value.size(), m->get<size_t>()));
    }
    if (auto m = schema.find("minProperties");
        m != schema.end() && m->is_number() && value.size() < m->get<size_t>()) {
      outcome.errors.push_back(FieldInvalid(
          path, value.size(),
          absl::StrCat(path, " in body should have at least ", m->get<size_t>(), " properties")));
    }
  }

  void ApplyArray(const nlohmann::json& schema, nlohmann::json& value, const std::string& path) {
    if (auto items = schema.find("items"); items != schema.end() && items->is_object()) {
      for (size_t i = 0; i < value.size(); ++i) {
        Apply(*items, value[i], absl::StrCat(path, "[", i, "]"));
      }
    }
    if (auto m = schema.find("maxItems");
        m != schema.end() && m->is_number() && value.size() > m->get<size_t>()) {
      outcome.errors.push_back(FieldTooMany(path, value.size(), m->get<size_t>()));
    }
    if (auto m = schema.find("minItems");
        m != schema.end() && m->is_number() && value.size() < m->get<size_t>()) {
      outcome.errors.push_back(FieldInvalid(
          path, value.size(),
          absl::StrCat(path, " in body should have at least ", m->get<size_t>(), " items")));
    }
  }

  void CheckScalar(const nlohmann::json& schema, const nlohmann::json& value,
                   const std::string& path) {
    if (auto e = schema.find("enum"); e != schema.end() && e->is_array()) {
      bool found = false;
      std::vector<std::string> supported;
      for (const auto& option : *e) {
        if (option == value) found = true;
        supported.push_back(option.is_string() ? option.get<std::string>() : option.dump());
      }
      if (!found) outcome.errors.push_back(FieldNotSupported(path, value, supported));
    }
    if (value.is_string()) {
      const std::string s = value.get<std::string>();
      if (auto p = schema.find("pattern"); p != schema.end() && p->is_string()) {
        const std::shared_ptr<const std::regex> pattern = CompiledPattern(p->get<std::string>());
        if (pattern != nullptr && !std::regex_search(s, *pattern)) {
          outcome.errors.push_back(FieldInvalid(
              path, value,
              absl::StrCat(path, " in body should match '", p->get<std::string>(), "'")));
        }
      }
      if (auto m = schema.find("maxLength");
          m != schema.end() && m->is_number() && s.size() > m->get<size_t>()) {
        outcome.errors.push_back(FieldTooLong(path, m->get<size_t>()));
      }
      if (auto m = schema.find("minLength");
          m != schema.end() && m->is_number() && s.size() < m->get<size_t>()) {
        outcome.errors.push_back(FieldInvalid(
            path, value,
            absl::StrCat(path, " in body should be at least ", m->get<size_t>(), " chars long")));
      }
    }
    if (value.is_number()) {
      double v = Number(value);
      if (auto m = schema.find("minimum"); m != schema.end() && m->is_number()) {
        bool exclusive = schema.value("exclusiveMinimum", false);
        if (exclusive ? v <= Number(*m) : v < Number(*m)) {
          outcome.errors.push_back(
              FieldInvalid(path, value,
                           absl::StrCat(path, " in body should be greater than ",
                                        exclusive ? "" : "or equal to ", Num(*m))));
        }
      }
      if (auto m = schema.find("maximum"); m != schema.end() && m->is_number()) {
        bool exclusive = schema.value("exclusiveMaximum", false);
        if (exclusive ? v >= Number(*m) : v > Number(*m)) {
          outcome.errors.push_back(
              FieldInvalid(path, value,
                           absl::StrCat(path, " in body should be less than ",
                                        exclusive ? "" : "or equal to ", Num(*m))));
        }
      }
    }
  }
};

}  // namespace

SchemaOutcome ApplyStructuralSchema(const nlohmann::json& schema, nlohmann::json& object) {
  Walker walker;
  if (!schema.is_object() || !object.is_object()) return walker.outcome;
  nlohmann::json props = schema.value("properties", nlohmann::json::object());
  bool preserve = schema.value("x-kubernetes-preserve-unknown-fields", false);
  for (auto& [key, sub] : props.items()) {
    if (key == "apiVersion" || key == "kind" || key == "metadata") continue;
    if (!object.contains(key) && sub.is_object() && sub.contains("default")) {
      object[key] = sub["default"];
    }
  }
  std::vector<std::string> keys;
  for (auto& [key, v] : object.items()) keys.push_back(key);
  for (const std::string& key : keys) {
    if (key == "apiVersion" || key == "kind" || key == "metadata") continue;
    if (props.contains(key)) {
      walker.Apply(props[key], object[key], key);
    } else if (!preserve) {
      walker.outcome.pruned_fields.push_back(key);
      object.erase(key);
    }
  }
  if (auto req = schema.find("required"); req != schema.end() && req->is_array()) {
    for (const auto& r : *req) {
      if (r.is_string() && !object.contains(r.get<std::string>())) {
        walker.outcome.errors.push_back(FieldRequired(r.get<std::string>()));
      }
    }
  }
  return walker.outcome;
}

}  // namespace gpuprofile::e2e
