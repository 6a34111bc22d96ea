// File: e2e/emulator/selectors.cc
#include "e2e/emulator/selectors.h"

#include <cctype>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace gpuprofile::e2e {
namespace {

std::string Trim(const std::string& s) {
  return std::string(absl::StripAsciiWhitespace(absl::string_view(s)));
}

// Splits on commas that are not inside parentheses.
std::vector<std::string> SplitTopLevel(const std::string& text) {
  std::vector<std::string> parts;
  int depth = 0;
  std::string current;
  for (char c : text) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == ',' && depth == 0) {
      parts.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  parts.push_back(current);
  return parts;
}

std::string ValueString(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_null()) return "";
  return v.dump();
}

}  // namespace

absl::StatusOr<std::vector<LabelRequirement>> ParseLabelSelector(const std::string& text) {
  std::vector<LabelRequirement> out;
  if (Trim(text).empty()) return out;
  for (const std::string& raw : SplitTopLevel(text)) {
    std::string part = Trim(raw);
    if (part.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("unable to parse requirement: found '', expected: identifier"));
    }
    LabelRequirement req;
    if (part[0] == '!') {
      req.key = Trim(part.substr(1));
      req.op = LabelRequirement::Op::kDoesNotExist;
    } else if (size_t p = part.find(" notin ");
               p != std::string::npos || part.find(" notin(") != std::string::npos) {
      if (p == std::string::npos) p = part.find(" notin(");
      req.key = Trim(part.substr(0, p));
      req.op = LabelRequirement::Op::kNotIn;
      std::string rest = Trim(part.substr(p + 6));
      if (rest.size() < 2 || rest.front() != '(' || rest.back() != ')') {
        return absl::InvalidArgumentError(
            absl::StrCat("unable to parse requirement: found '", rest, "', expected: '('"));
      }
      for (absl::string_view v : absl::StrSplit(rest.substr(1, rest.size() - 2), ',')) {
        req.values.push_back(Trim(std::string(v)));
      }
    } else if (size_t q = part.find(" in ");
               q != std::string::npos || part.find(" in(") != std::string::npos) {
      if (q == std::string::npos) q = part.find(" in(");
      req.key = Trim(part.substr(0, q));
      req.op = LabelRequirement::Op::kIn;
      std::string rest = Trim(part.substr(q + 3));
      if (rest.size() < 2 || rest.front() != '(' || rest.back() != ')') {
        return absl::InvalidArgumentError(
            absl::StrCat("unable to parse requirement: found '", rest, "', expected: '('"));
      }
      for (absl::string_view v : absl::StrSplit(rest.substr(1, rest.size() - 2), ',')) {
        req.values.push_back(Trim(std::string(v)));
      }
    } else if (size_t ne = part.find("!="); ne != std::string::npos) {
      req.key = Trim(part.substr(0, ne));
      req.op = LabelRequirement::Op::kNotEquals;
      req.values.push_back(Trim(part.substr(ne + 2)));
    } else if (size_t eq = part.find('='); eq != std::string::npos) {
      req.key = Trim(part.substr(0, eq));
      size_t skip = (eq + 1 < part.size() && part[eq + 1] == '=') ? 2 : 1;
      req.op = LabelRequirement::Op::kEquals;
      req.values.push_back(Trim(part.substr(eq + skip)));
    } else {
      req.key = part;
      req.op = LabelRequirement::Op::kExists;
    }
    if (req.key.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("unable to parse requirement: found '", part, "', expected: identifier"));
    }
    for (char c : req.key) {
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ||
            c == '/')) {
        return absl::InvalidArgumentError(
            absl::StrCat("unable to parse requirement: invalid label key \"", req.key, "\""));
      }
    }
    out.push_back(std::move(req));
  }
  return out;
}

bool MatchesLabels(const std::vector<LabelRequirement>& selector, const nlohmann::json& object) {
  const nlohmann::json* labels = Lookup(object, "metadata.labels");
  for (const LabelRequirement& req : selector) {
    bool has = labels && labels->is_object() && labels->contains(req.key);
    std::string value = has ? ValueString((*labels)[req.key]) : "";
    auto in_values = [&] {
      for (const std::string& v : req.values) {
        if (v == value) return true;
      }
      return false;
    };
    switch (req.op) {
      case LabelRequirement::Op::kEquals:
        if (!has || value != req.values[0]) return false;
        break;
      case LabelRequirement::Op::kNotEquals:
        if (has && value == req.values[0]) return false;
        break;
      case LabelRequirement::Op::kIn:
        if (!has || !in_values()) return false;
        break;
      case LabelRequirement::Op::kNotIn:
        if (has && in_values()) return false;
        break;
      case LabelRequirement::Op::kExists:
        if (!has) return false;
        break;
      case LabelRequirement::Op::kDoesNotExist:
        if (has) return false;
        break;
    }
  }
  return true;
}

absl::StatusOr<std::vector<FieldRequirement>> ParseFieldSelector(const std::string& text) {
  std::vector<FieldRequirement> out;
  if (Trim(text).empty()) return out;
  for (absl::string_view raw : absl::StrSplit(text, ',')) {
    std::string part = Trim(std::string(raw));
    FieldRequirement req;
    if (size_t ne = part.find("!="); ne != std::string::npos) {
      req.field = Trim(part.substr(0, ne));
      req.equals = false;
      req.value = Trim(part.substr(ne + 2));
    } else if (size_t eq = part.find('='); eq != std::string::npos) {
      req.field = Trim(part.substr(0, eq));
      size_t skip = (eq + 1 < part.size() && part[eq + 1] == '=') ? 2 : 1;
      req.value = Trim(part.substr(eq + skip));
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("invalid selector: '", text, "'; can't understand '", part, "'"));
    }
    out.push_back(std::move(req));
  }
  return out;
}

absl::StatusOr<Selectors> ParseSelectors(const std::string& label_selector,
                                         const std::string& field_selector) {
  absl::StatusOr<std::vector<LabelRequirement>> labels = ParseLabelSelector(label_selector);
  if (!labels.ok()) return labels.status();
  absl::StatusOr<std::vector<FieldRequirement>> fields = ParseFieldSelector(field_selector);
  if (!fields.ok()) return fields.status();
  return Selectors{*std::move(labels), *std::move(fields)};
}

absl::Status CheckFieldLabels(const std::vector<FieldRequirement>& fields,
                              const std::set<std::string>& supported) {
  for (const FieldRequirement& f : fields) {
    if (f.field != "metadata.name" && f.field != "metadata.namespace" &&
        !supported.count(f.field)) {
      return absl::InvalidArgumentError(absl::StrCat("field label not supported: ", f.field));
    }
  }
  return absl::OkStatus();
}

bool MatchesFields(const std::vector<FieldRequirement>& selector, const nlohmann::json& object) {
  for (const FieldRequirement& req : selector) {
    bool equal = FieldString(object, req.field) == req.value;
    if (equal != req.equals) return false;
  }
  return true;
}

const nlohmann::json* Lookup(const nlohmann::json& object, const std::string& dotted_path) {
  const nlohmann::json* current = &object;
  for (absl::string_view part : absl::StrSplit(dotted_path, '.')) {
    if (part.empty()) continue;
    if (!current->is_object()) return nullptr;
    auto it = current->find(std::string(part));
    if (it == current->end()) return nullptr;
    current = &*it;
  }
  return current;
}

std::string FieldString(const nlohmann::json& object, const std::string& dotted_path) {
  const nlohmann::json* v = Lookup(object, dotted_path);
  return v ? ValueString(*v) : "";
}

namespace {

void Walk(const nlohmann::json& node, const std::string& path, size_t pos,
          std::vector<nlohmann::json>& out) {
  if (pos >= path.size()) {
    out.push_back(node);
    return;
  }
  if (path[pos] == '.') {
    size_t end = path.find_first_of(".[", pos + 1);
    std::string key =
        path.substr(pos + 1, end == std::string::npos ? std::string::npos : end - pos - 1);
    if (key.empty()) {
      Walk(node, path, end == std::string::npos ? path.size() : end, out);
      return;
    }
    if (!node.is_object()) return;
    auto it = node.find(key);
    if (it == node.end()) return;
    Walk(*it, path, end == std::string::npos ? path.size() : end, out);
    return;
  }
  if (path[pos] == '[') {
    size_t close = path.find(']', pos);
    if (close == std::string::npos || !node.is_array()) return;
    std::string inner = path.substr(pos + 1, close - pos - 1);
    size_t next = close + 1;
    if (inner == "*") {
      for (const auto& item : node) Walk(item, path, next, out);
    } else if (inner.rfind("?(@.", 0) == 0 && inner.back() == ')') {
      // ?(@.field=="value") or ?(@.field=='value')
      std::string cond = inner.substr(4, inner.size() - 5);
      size_t eq = cond.find("==");
      if (eq == std::string::npos) return;
      std::string field = cond.substr(0, eq);
      std::string value = cond.substr(eq + 2);
      if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'')) {
        value = value.substr(1, value.size() - 2);
      }
      for (const auto& item : node) {
        if (FieldString(item, field) == value) Walk(item, path, next, out);
      }
    } else {
      char* end = nullptr;
      long index = std::strtol(inner.c_str(), &end, 10);
      if (end == inner.c_str()) return;
      if (index < 0) index += static_cast<long>(node.size());
      if (index < 0 || static_cast<size_t>(index) >= node.size()) return;
      Walk(node[static_cast<size_t>(index)], path, next, out);
    }
    return;
  }
  // Tolerate a path without the leading dot.
  Walk(node, "." + path.substr(pos), 0, out);
}

}  // namespace

std::vector<nlohmann::json> EvaluateJsonPath(const nlohmann::json& object,
                                             const std::string& path) {
  std::vector<nlohmann::json> out;
  std::string p = path;
  if (!p.empty() && p.front() == '{' && p.back() == '}') p = p.substr(1, p.size() - 2);
  if (p.empty()) return out;
  Walk(object, p, 0, out);
  return out;
}

}  // namespace gpuprofile::e2e
