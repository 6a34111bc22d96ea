// File: e2e/emulator/validation_rules.cc
#include "e2e/emulator/validation_rules.h"

#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "controller/cel/environment.h"
#include "controller/cel/program.h"
#include "controller/cel/value.h"

namespace gpuprofile::e2e {
namespace {

constexpr char kRootPath[] = "<nil>";  // how field.Path renders the nil root path

struct CompiledExpression {
  std::shared_ptr<const cel::Program> program;  // null: skipped
  bool uses_old_self = false;
};

// Compiled expressions by text; the environments are the same for every CRD.
class ExpressionCache {
 public:
  static ExpressionCache& Get() {
    static ExpressionCache* cache = new ExpressionCache();
    return *cache;
  }

  CompiledExpression Compile(const std::string& text) {
    absl::MutexLock lock(&mu_);
    auto it = compiled_.find(text);
    if (it != compiled_.end()) return it->second;
    CompiledExpression out;
    cel::CompileOptions options;
    options.enforce_limits = false;
    auto program = cel::Compile(text, self_only_, options);
    if (!program.ok()) {
      // Either it refers to oldSelf (a transition rule) or it cannot be compiled.
      auto with_old = cel::Compile(text, self_and_old_, options);
      if (with_old.ok()) {
        out.program = *with_old;
        out.uses_old_self = true;
      } else {
        std::cerr << "kube-emulator: x-kubernetes-validations: skipping rule (CEL engine: "
                  << with_old.status().message() << "): " << text << "\n";
      }
    } else {
      out.program = *program;
    }
    compiled_.emplace(text, out);
    return out;
  }

 private:
  ExpressionCache()
      : self_only_(cel::Environment::Standard({{"self", cel::Type::Dyn()}})),
        self_and_old_(cel::Environment::Standard(
            {{"self", cel::Type::Dyn()}, {"oldSelf", cel::Type::Dyn()}})) {}

  const std::shared_ptr<const cel::Environment> self_only_;
  const std::shared_ptr<const cel::Environment> self_and_old_;
  absl::Mutex mu_;
  std::map<std::string, CompiledExpression> compiled_ ABSL_GUARDED_BY(mu_);
};

const nlohmann::json* Member(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

std::string SchemaType(const nlohmann::json& schema) {
  const nlohmann::json* t = Member(schema, "type");
  return t && t->is_string() ? t->get<std::string>() : "";
}

// A JSON value as CEL sees it through its schema.
cel::Value ToCel(const nlohmann::json& value, const nlohmann::json* schema) {
  std::string type = schema ? SchemaType(*schema) : "";
  switch (value.type()) {
    case nlohmann::json::value_t::null:
      return cel::Value::Null();
    case nlohmann::json::value_t::boolean:
      return cel::Value::Bool(value.get<bool>());
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
      if (type == "number") return cel::Value::Double(value.get<double>());
      if (value.is_number_unsigned() && value.get<uint64_t>() > INT64_MAX) {
        return cel::Value::Double(value.get<double>());
      }
      return cel::Value::Int(value.get<int64_t>());
    case nlohmann::json::value_t::number_float: {
      double d = value.get<double>();
      if (type == "integer" && d == static_cast<double>(static_cast<int64_t>(d))) {
        return cel::Value::Int(static_cast<int64_t>(d));
      }
      return cel::Value::Double(d);
    }
    case nlohmann::json::value_t::string:
      return cel::Value::String(value.get<std::string>());
    case nlohmann::json::value_t::array: {
      const nlohmann::json* items = schema ? Member(*schema, "items") : nullptr;
      std::vector<cel::Value> elements;
      elements.reserve(value.size());
      for (const nlohmann::json& e : value) elements.push_back(ToCel(e, items));
      return cel::Value::List(std::move(elements));
    }
    case nlohmann::json::value_t::object: {
      const nlohmann::json* props = schema ? Member(*schema, "properties") : nullptr;
      const nlohmann::json* additional = schema ? Member(*schema, "additionalProperties") : nullptr;
      if (additional && !additional->is_object()) additional = nullptr;
      auto map = std::make_shared<cel::HashMapValue>();
      for (const auto& [k, v] : value.items()) {
        const nlohmann::json* sub = props ? Member(*props, k.c_str()) : nullptr;
        if (!sub) sub = additional;
        map->Insert(cel::Value::String(k), ToCel(v, sub));
      }
      return cel::Value::Map(std::move(map));
    }
    default:
      return cel::Value::Null();
  }
}

// The root as rules see it: apiVersion, kind, metadata.name and metadata.generateName, and
// the schema's other properties.
nlohmann::json RootView(const nlohmann::json& object) {
  nlohmann::json view = object;
  if (auto it = view.find("metadata"); it != view.end() && it->is_object()) {
    nlohmann::json meta = nlohmann::json::object();
    for (const char* key : {"name", "generateName"}) {
      if (it->contains(key)) meta[key] = (*it)[key];
    }
    *it = std::move(meta);
  }
  return view;
}

std::string ChildPath(const std::string& path, const std::string& name) {
  return path == kRootPath ? name : absl::StrCat(path, ".", name);
}

// fieldPath (".a.b", "['a'].b") against the schema at the rule, normalized as
// field.Path renders it ("a.b", keys of additionalProperties as "[k]"); nullopt when it does
// not refer to a field (a real server refuses such a CRD).
std::optional<std::string> NormalizeFieldPath(const std::string& json_path,
                                              const nlohmann::json& schema) {
  std::string out;
  const nlohmann::json* node = &schema;
  size_t i = 0;
  auto append = [&](const std::string& name) -> bool {
    const nlohmann::json* props = Member(*node, "properties");
    const nlohmann::json* additional = Member(*node, "additionalProperties");
    if (props) {
      const nlohmann::json* sub = Member(*props, name.c_str());
      if (!sub) return false;
      out = out.empty() ? name : absl::StrCat(out, ".", name);
      node = sub;
      return true;
    }
    if (additional && additional->is_object()) {
      out = absl::StrCat(out, "[", name, "]");
      node = additional;
      return true;
    }
    return false;
  };
  while (i < json_path.size()) {
    if (json_path[i] == '.') {
      size_t end = json_path.find_first_of(".[", i + 1);
      if (end == std::string::npos) end = json_path.size();
      std::string name = json_path.substr(i + 1, end - i - 1);
      if (name.empty() || !append(name)) return std::nullopt;
      i = end;
    } else if (json_path.compare(i, 2, "['") == 0) {
      size_t end = json_path.find("']", i + 2);
      if (end == std::string::npos) return std::nullopt;
      std::string name = json_path.substr(i + 2, end - i - 2);
      if (!append(name)) return std::nullopt;
      i = end + 2;
    } else {
      return std::nullopt;
    }
  }
  if (out.empty()) return std::nullopt;
  return out;
}

std::string Quote(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

class RuleWalker {
 public:
  RulesOutcome outcome;

  // `equal`: this value equals its correlated old value (or, for values without correlation,
  // the nearest correlated ancestor does); errors of rules without oldSelf are then warnings.
  void Walk(const nlohmann::json& schema, const nlohmann::json& value, const nlohmann::json* old,
            const std::string& path, bool root, bool equal) {
    if (!schema.is_object() || value.is_null()) return;
    if (old && old->is_null()) old = nullptr;
    if (const nlohmann::json* rules = Member(schema, "x-kubernetes-validations");
        rules && rules->is_array() && !rules->empty()) {
      RunRules(*rules, schema, value, old, path, root, equal);
    }
    if (value.is_object()) {
      const nlohmann::json* props = Member(schema, "properties");
      const nlohmann::json* additional = Member(schema, "additionalProperties");
      if (additional && !additional->is_object()) additional = nullptr;
      for (const auto& [k, v] : value.items()) {
        if (root && (k == "apiVersion" || k == "kind" || k == "metadata")) continue;
        const nlohmann::json* sub = props ? Member(*props, k.c_str()) : nullptr;
        std::string sub_path = sub ? ChildPath(path, k) : absl::StrCat(path, "[", k, "]");
        if (!sub) sub = additional;
        if (!sub) continue;
        const nlohmann::json* old_v = old ? Member(*old, k.c_str()) : nullptr;
        Walk(*sub, v, old_v, sub_path, false, old_v && *old_v == v);
      }
    } else if (value.is_array()) {
      const nlohmann::json* items = Member(schema, "items");
      if (!items) return;
      std::vector<std::string> keys;
      if (const nlohmann::json* lt = Member(schema, "x-kubernetes-list-type"); lt && *lt == "map") {
        if (const nlohmann::json* k = Member(schema, "x-kubernetes-list-map-keys");
            k && k->is_array()) {
          for (const auto& key : *k) {
            if (key.is_string()) keys.push_back(key.get<std::string>());
          }
        }
      }
      for (size_t i = 0; i < value.size(); ++i) {
        const nlohmann::json* old_item = nullptr;
        if (!keys.empty() && old && old->is_array()) {
          for (const nlohmann::json& candidate : *old) {
            bool same = candidate.is_object() && value[i].is_object();
            for (const std::string& key : keys) {
              if (!same) break;
              same =
                  candidate.value(key, nlohmann::json()) == value[i].value(key, nlohmann::json());
            }
            if (same) {
              old_item = &candidate;
              break;
            }
          }
        }
        bool item_equal = keys.empty() ? equal : (old_item && *old_item == value[i]);
        Walk(*items, value[i], old_item, absl::StrCat(path, "[", i, "]"), false, item_equal);
      }
    }
  }

 private:
  void RunRules(const nlohmann::json& rules, const nlohmann::json& schema,
                const nlohmann::json& value, const nlohmann::json* old, const std::string& path,
                bool root, bool equal) {
    std::optional<cel::Value> self;
    std::optional<cel::Value> old_self;
    const std::string type = SchemaType(schema);  // "" for untyped and int-or-string
    for (const nlohmann::json& rule : rules) {
      const nlohmann::json* text = Member(rule, "rule");
      if (!text || !text->is_string() || text->get<std::string>().empty()) continue;
      CompiledExpression compiled = ExpressionCache::Get().Compile(text->get<std::string>());
      if (!compiled.program) continue;
      if (compiled.uses_old_self && !old) continue;  // transition rules need an old value
      if (!self) self = ToCel(root ? RootView(value) : value, &schema);
      if (compiled.uses_old_self && !old_self) {
        old_self = ToCel(root ? RootView(*old) : *old, &schema);
      }
      std::vector<cel::Value> args;
      args.reserve(2);
      args.push_back(*self);
      if (compiled.uses_old_self) args.push_back(*old_self);
      cel::Value result = compiled.program->Evaluate(args);
      std::string message = RuleMessage(rule);
      if (result.is_error() || !result.is_bool()) {
        std::string error = result.is_error() ? std::string(result.error_message())
                                              : "rule did not evaluate to a bool";
        if (error.rfind("no such overload", 0) == 0) {
          Add(FieldInvalid(path, type,
                           absl::StrCat("'", error,
                                        "': call arguments did not match a supported operator, "
                                        "function or macro signature for rule: ",
                                        message)),
              compiled.uses_old_self, equal);
        } else {
          Add(FieldInvalid(path, type, absl::StrCat(error, " evaluating rule: ", message)),
              compiled.uses_old_self, equal);
        }
        continue;
      }
      if (result.IsTrue()) continue;
      std::string field = path;
      if (const nlohmann::json* fp = Member(rule, "fieldPath"); fp && fp->is_string()) {
        if (std::optional<std::string> normalized = NormalizeFieldPath(*fp, schema)) {
          field = ChildPath(path, *normalized);
        }
      }
      std::string detail = MessageExpression(rule, *self, old_self);
      if (detail.empty()) {
        const nlohmann::json* m = Member(rule, "message");
        std::string text_message =
            m && m->is_string() ? std::string(absl::StripAsciiWhitespace(m->get<std::string>()))
                                : "";
        detail = text_message.empty() ? absl::StrCat("failed rule: ", message) : text_message;
      }
      std::string reason;
      if (const nlohmann::json* r = Member(rule, "reason"); r && r->is_string()) {
        reason = r->get<std::string>();
      }
      StatusCause cause;
      if (reason == "FieldValueForbidden") {
        cause = FieldForbidden(field, detail);
      } else if (reason == "FieldValueRequired") {
        cause = FieldRequired(field, detail);
      } else if (reason == "FieldValueDuplicate") {
        cause = FieldDuplicate(field, type);
      } else {
        cause = FieldInvalid(field, type, detail);
      }
      Add(std::move(cause), compiled.uses_old_self, equal);
    }
  }

  // ruleErrorString: the message when there is one, else the rule.
  static std::string RuleMessage(const nlohmann::json& rule) {
    const nlohmann::json* m = Member(rule, "message");
    if (m && m->is_string()) {
      std::string s(absl::StripAsciiWhitespace(m->get<std::string>()));
      if (!s.empty()) return s;
    }
    return std::string(absl::StripAsciiWhitespace(rule.value("rule", "")));
  }

  // messageExpression's value; "" when absent, skipped or failing (then the message is used,
  // as kube-apiserver does).
  static std::string MessageExpression(const nlohmann::json& rule, const cel::Value& self,
                                       const std::optional<cel::Value>& old_self) {
    const nlohmann::json* expr = Member(rule, "messageExpression");
    if (!expr || !expr->is_string() || expr->get<std::string>().empty()) return "";
    CompiledExpression compiled = ExpressionCache::Get().Compile(expr->get<std::string>());
    if (!compiled.program) return "";
    if (compiled.uses_old_self && !old_self) return "";
    std::vector<cel::Value> args = {self};
    if (compiled.uses_old_self) args.push_back(*old_self);
    cel::Value result = compiled.program->Evaluate(args);
    if (result.kind() != cel::ValueKind::kString) return "";
    std::string s(absl::StripAsciiWhitespace(result.string_value()));
    if (s.find('\n') != std::string::npos) return "";
    return s;
  }

  void Add(StatusCause cause, bool uses_old_self, bool equal) {
    if (!uses_old_self && equal) {
      outcome.warnings.push_back(Quote(absl::StrCat(cause.field, ": ", cause.message)));
      return;
    }
    outcome.errors.push_back(std::move(cause));
  }
};

}  // namespace

RulesOutcome ApplyValidationRules(const nlohmann::json& schema, const nlohmann::json& object,
                                  const nlohmann::json* old) {
  RuleWalker walker;
  if (!schema.is_object() || !object.is_object()) return walker.outcome;
  if (old && !old->is_object()) old = nullptr;
  walker.Walk(schema, object, old, kRootPath, true, old && *old == object);
  return walker.outcome;
}

bool HasBlockingSchemaError(const std::vector<StatusCause>& schema_errors) {
  static const std::set<std::string> kBlocking = {"FieldValueNotSupported", "FieldValueRequired",
                                                  "FieldValueTooLong", "FieldValueTooMany",
                                                  "FieldValueTypeInvalid"};
  for (const StatusCause& c : schema_errors) {
    if (kBlocking.count(c.reason)) return true;
    // The structural-schema code reports type errors as Invalid with kube-openapi's wording.
    if (c.message.find(" in body must be of type ") != std::string::npos) return true;
  }
  return false;
}

StatusCause RulesNotCheckedCause() {
  return FieldInvalid(kRootPath, "null",
                      "some validation rules were not checked because the object was invalid; "
                      "correct the existing errors to complete validation");
}

}  // namespace gpuprofile::e2e
