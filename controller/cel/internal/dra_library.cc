// File: controller/cel/internal/dra_library.cc
// The functions Kubernetes' DRA selector environment adds to CEL
// (k8s.io/dynamic-resource-allocation cel/compile.go):
//
//   <target>.includes(<value>) -> bool    member function on dyn, 1.36+, gate DRAListTypeAttributes
//
// `includes` answers whether a list-typed attribute holds the value, or, for a scalar attribute,
// whether it equals the value, with CEL equality (1.includes(1.0) is true). It stops with the
// runtime error "'includes' function cannot be applied to lists longer than 48 values" when it
// would have to look past the 48th element (ResourceSliceMaxAttributeValuesPerDevice); a match
// among the first 48 is found before that. Its estimated cost is 48 whatever the receiver
// (controller/cel/internal/cost.cc).
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "controller/cel/internal/function.h"
#include "controller/core/feature_gates.h"

namespace gpuprofile::cel::internal {
namespace {

constexpr int kIncludesIntroducedMinor = 36;
constexpr char kDraListsLibrary[] = "DRA list-type attributes";

}  // namespace

void RegisterDraLibrary(FunctionRegistry& registry) {
  Overload o = MakeOverload(
      kDraIncludesOverload, {Type::Dyn(), Type::Dyn()}, Type::Bool(),
      [](absl::Span<const Value> a) {
        const Value& target = a[0];
        const Value& value = a[1];
        if (target.kind() != ValueKind::kList) return Value::Bool(Equal(target, value).IsTrue());
        const ListValue& list = target.list_value();
        for (size_t i = 0; i < list.size(); ++i) {
          if (i >= kDraIncludesMaxValues) {
            return Value::Error(absl::StrCat(
                "'includes' function cannot be applied to lists longer than ",
                kDraIncludesMaxValues, " values"));
          }
          if (Equal(list.Get(i), value).IsTrue()) return Value::Bool(true);
        }
        return Value::Bool(false);
      },
      /*receiver_style=*/true);
  o.gate = Gate{kIncludesIntroducedMinor, kDraListsLibrary, kDRAListTypeAttributes};
  registry.Add("includes", std::move(o));
}

}  // namespace gpuprofile::cel::internal
