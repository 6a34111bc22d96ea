// File: controller/profile/selector_paths.cc
#include "controller/profile/selector_paths.h"

#include <algorithm>
#include <optional>
#include <string>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "controller/cel/ast.h"
#include "controller/cel/operators.h"
#include "controller/cel/parser.h"

namespace gpuprofile::profile {
namespace {

using cel::Expr;

bool IsDeviceIdent(const Expr& e) { return e.kind == Expr::Kind::kIdent && e.name == "device"; }

bool IsStringConstant(const Expr* e) {
  return e != nullptr && e->kind == Expr::Kind::kConstant &&
         e->constant.kind == cel::Constant::Kind::kString;
}

// `device.attributes['d']` or `device.capacity['d']`: sets kind and domain.
bool IsDomainMap(const Expr& e, DevicePath* path) {
  if (e.kind != Expr::Kind::kCall || e.operand || e.args.size() != 2) return false;
  if (e.name != cel::op::kIndex && e.name != cel::op::kOptIndex) return false;
  const Expr& map = *e.args[0];
  if (map.kind != Expr::Kind::kSelect || map.test_only || !IsDeviceIdent(*map.operand)) {
    return false;
  }
  if (!IsStringConstant(e.args[1].get())) return false;
  if (map.name == "attributes") {
    path->kind = DevicePath::Kind::kAttribute;
  } else if (map.name == "capacity") {
    path->kind = DevicePath::Kind::kCapacity;
  } else {
    return false;
  }
  path->domain = e.args[1]->constant.string_value;
  return true;
}

class PathCollector {
 public:
  bool Visit(const Expr& e) {
    DevicePath path;
    switch (e.kind) {
      case Expr::Kind::kIdent:
        return !IsDeviceIdent(e);  // `device` used whole
      case Expr::Kind::kSelect:
        if (IsDeviceIdent(*e.operand)) {
          if (e.name == "attributes" || e.name == "capacity") return false;
          paths_.push_back(
              {e.name == "driver" ? DevicePath::Kind::kDriver : DevicePath::Kind::kOtherField, "",
               e.name == "driver" ? "" : e.name});
          return true;
        }
        if (IsDomainMap(*e.operand, &path)) {
          path.id = e.name;
          paths_.push_back(std::move(path));
          return true;
        }
        return Visit(*e.operand);
      case Expr::Kind::kCall:
        if (e.args.size() == 2 && !e.operand) {
          // domain['id'], domain[?'id'], domain.?id
          if ((e.name == cel::op::kIndex || e.name == cel::op::kOptIndex ||
               e.name == cel::op::kOptSelect) &&
              IsDomainMap(*e.args[0], &path) && IsStringConstant(e.args[1].get())) {
            path.id = e.args[1]->constant.string_value;
            paths_.push_back(std::move(path));
            return true;
          }
          // 'id' in domain
          if (e.name == cel::op::kIn && IsStringConstant(e.args[0].get()) &&
              IsDomainMap(*e.args[1], &path)) {
            path.id = e.args[0]->constant.string_value;
            paths_.push_back(std::move(path));
            return true;
          }
        }
        if (e.operand && !Visit(*e.operand)) return false;
        for (const cel::ExprPtr& arg : e.args) {
          if (!Visit(*arg)) return false;
        }
        return true;
      case Expr::Kind::kComprehension:
        if (e.iter_var == "device" || e.iter_var2 == "device" || e.accu_var == "device") {
          return false;  // shadows the variable: not worth modelling
        }
        for (const cel::ExprPtr* child :
             {&e.iter_range, &e.accu_init, &e.loop_condition, &e.loop_step, &e.result}) {
          if (*child && !Visit(**child)) return false;
        }
        return true;
      case Expr::Kind::kList:
        for (const cel::ExprPtr& element : e.args) {
          if (!Visit(*element)) return false;
        }
        return true;
      case Expr::Kind::kMap:
      case Expr::Kind::kMessage:
        for (const cel::CreateEntry& entry : e.entries) {
          if (entry.map_key && !Visit(*entry.map_key)) return false;
          if (entry.value && !Visit(*entry.value)) return false;
        }
        return true;
      case Expr::Kind::kConstant:
        return true;
    }
    return false;
  }

  std::vector<DevicePath> Take() && { return std::move(paths_); }

 private:
  std::vector<DevicePath> paths_;
};

// The attribute/capacity entry of `device` at (domain, id): unqualified names are in the
// driver's domain, and a qualified name in the driver's own domain means the same entry.
std::optional<dra::AttributeValue> LookupAttribute(const dra::Device& device,
                                                   const std::string& domain,
                                                   const std::string& id) {
  if (domain == device.driver()) {
    std::optional<dra::AttributeValue> value = device.FindAttribute(id);
    if (value.has_value()) return value;
  }
  return device.FindAttribute(absl::StrCat(domain, "/", id));
}

const Quantity* LookupCapacity(const dra::Device& device, const std::string& domain,
                               const std::string& id) {
  if (domain == device.driver()) {
    const Quantity* value = device.FindCapacity(id);
    if (value != nullptr) return value;
  }
  return device.FindCapacity(absl::StrCat(domain, "/", id));
}

void AppendAttribute(const dra::AttributeValue& value, std::string* key) {
  using Kind = dra::AttributeValue::Kind;
  switch (value.kind()) {
    case Kind::kInt:
      absl::StrAppend(key, "i", value.int_value());
      break;
    case Kind::kBool:
      absl::StrAppend(key, value.bool_value() ? "t" : "f");
      break;
    case Kind::kString:
      absl::StrAppend(key, "s", value.string_value().size(), ":", value.string_value());
      break;
    case Kind::kVersion:
      absl::StrAppend(key, "v", value.string_value().size(), ":", value.string_value());
      break;
  }
}

}  // namespace

bool DevicePath::operator==(const DevicePath& other) const {
  return kind == other.kind && domain == other.domain && id == other.id;
}

bool DevicePath::operator<(const DevicePath& other) const {
  return std::tie(kind, domain, id) < std::tie(other.kind, other.domain, other.id);
}

std::optional<std::vector<DevicePath>> ReadPaths(absl::string_view expression) {
  absl::StatusOr<cel::Ast> ast = cel::Parse(expression);
  if (!ast.ok()) return std::nullopt;
  PathCollector collector;
  if (!collector.Visit(*ast->root)) return std::nullopt;
  std::vector<DevicePath> paths = std::move(collector).Take();
  std::sort(paths.begin(), paths.end());
  paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
  return paths;
}

void AppendProjectionKey(const dra::Device& device, const std::vector<DevicePath>& paths,
                         std::string* key) {
  for (const DevicePath& path : paths) {
    switch (path.kind) {
      case DevicePath::Kind::kDriver:
        absl::StrAppend(key, device.driver().size(), ":", device.driver());
        break;
      case DevicePath::Kind::kAttribute: {
        const std::optional<dra::AttributeValue> value =
            LookupAttribute(device, path.domain, path.id);
        if (!value.has_value()) {
          key->push_back('-');
        } else {
          AppendAttribute(*value, key);
        }
        break;
      }
      case DevicePath::Kind::kCapacity: {
        const Quantity* value = LookupCapacity(device, path.domain, path.id);
        if (value == nullptr) {
          key->push_back('-');
        } else {
          const std::string text = value->ToString();
          absl::StrAppend(key, "q", text.size(), ":", text);
        }
        break;
      }
      case DevicePath::Kind::kOtherField:
        // Fields the device model does not carry read the same for every device.
        break;
    }
    key->push_back('|');
  }
}

}  // namespace gpuprofile::profile
