// File: controller/meta/label_selector_codec.cc
// Validation follows ValidateLabelSelector and labels.NewRequirement (apimachinery).
#include "controller/meta/label_selector_codec.h"

#include <optional>
#include <string>
#include <utility>

#include "controller/core/names.h"

namespace gpuprofile::meta {
namespace {

using json = nlohmann::json;
using ordered_json = nlohmann::ordered_json;
using Operator = LabelSelectorRequirement::Operator;

std::optional<Operator> ParseOperator(absl::string_view name) {
  if (name == "In") return Operator::kIn;
  if (name == "NotIn") return Operator::kNotIn;
  if (name == "Exists") return Operator::kExists;
  if (name == "DoesNotExist") return Operator::kDoesNotExist;
  return std::nullopt;
}

void CheckKey(absl::string_view key, absl::string_view path, FieldErrors* errors) {
  if (absl::Status s = IsQualifiedName(key); !s.ok()) errors->AddInvalid(path, key, s.message());
}

void CheckValue(absl::string_view value, absl::string_view path, FieldErrors* errors) {
  if (absl::Status s = IsLabelValue(value); !s.ok()) errors->AddInvalid(path, value, s.message());
}

LabelSelectorRequirement DecodeRequirement(const json& value, const std::string& path,
                                           FieldErrors* errors) {
  LabelSelectorRequirement requirement;
  if (!CheckObject(value, path, errors)) return requirement;
  RejectUnknownFields(value, {"key", "operator", "values"}, path, errors);
  if (std::optional<std::string> key = StringField(value, "key", path, true, errors)) {
    CheckKey(*key, FieldChild(path, "key"), errors);
    requirement.key = *std::move(key);
  }
  const std::string values_path = FieldChild(path, "values");
  if (const json* values = JsonMember(value, "values")) {
    requirement.values = ReadStringList(*values, values_path, errors);
    for (size_t i = 0; i < requirement.values.size(); ++i) {
      CheckValue(requirement.values[i], FieldIndex(values_path, i), errors);
    }
  }
  const std::string op_path = FieldChild(path, "operator");
  std::optional<std::string> op_name = StringField(value, "operator", path, true, errors);
  if (!op_name) return requirement;
  std::optional<Operator> op = ParseOperator(*op_name);
  if (!op) {
    errors->AddUnsupported(op_path, *op_name, {"In", "NotIn", "Exists", "DoesNotExist"});
    return requirement;
  }
  requirement.op = *op;
  const bool has_values = !requirement.values.empty();
  if ((*op == Operator::kIn || *op == Operator::kNotIn) && !has_values) {
    errors->Add(values_path, "must be specified when `operator` is 'In' or 'NotIn'");
  }
  if ((*op == Operator::kExists || *op == Operator::kDoesNotExist) && has_values) {
    errors->Add(values_path, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
  }
  return requirement;
}

}  // namespace

const char* LabelSelectorOperatorName(Operator op) {
  switch (op) {
    case Operator::kIn:
      return "In";
    case Operator::kNotIn:
      return "NotIn";
    case Operator::kExists:
      return "Exists";
    case Operator::kDoesNotExist:
      return "DoesNotExist";
  }
  return "In";
}

LabelSelector DecodeLabelSelector(const json& value, absl::string_view path, FieldErrors* errors) {
  LabelSelector selector;
  if (!CheckObject(value, path, errors)) return selector;
  RejectUnknownFields(value, {"matchLabels", "matchExpressions"}, path, errors);
  if (const json* labels = JsonMember(value, "matchLabels")) {
    const std::string labels_path = FieldChild(path, "matchLabels");
    selector.match_labels = ReadStringMap(*labels, labels_path, errors);
    for (const auto& [key, label_value] : selector.match_labels) {
      CheckKey(key, FieldKey(labels_path, key), errors);
      CheckValue(label_value, FieldKey(labels_path, key), errors);
    }
  }
  const std::string expressions_path = FieldChild(path, "matchExpressions");
  if (const json* expressions = ArrayField(value, "matchExpressions", path, false, errors)) {
    for (size_t i = 0; i < expressions->size(); ++i) {
      selector.match_expressions.push_back(
          DecodeRequirement((*expressions)[i], FieldIndex(expressions_path, i), errors));
    }
  }
  return selector;
}

absl::StatusOr<LabelSelector> DecodeLabelSelector(const json& value, absl::string_view path) {
  FieldErrors errors;
  LabelSelector selector = DecodeLabelSelector(value, path, &errors);
  if (!errors.empty()) return errors.ToStatus();
  return selector;
}

ordered_json EncodeLabelSelector(const LabelSelector& selector) {
  ordered_json out = ordered_json::object();
  if (!selector.match_labels.empty()) out["matchLabels"] = selector.match_labels;
  if (!selector.match_expressions.empty()) {
    ordered_json expressions = ordered_json::array();
    for (const LabelSelectorRequirement& requirement : selector.match_expressions) {
      ordered_json e = ordered_json::object();
      e["key"] = requirement.key;
      e["operator"] = LabelSelectorOperatorName(requirement.op);
      if (!requirement.values.empty()) e["values"] = requirement.values;
      expressions.push_back(std::move(e));
    }
    out["matchExpressions"] = std::move(expressions);
  }
  return out;
}

}  // namespace gpuprofile::meta
