// File: controller/cel/internal/sets_library.cc
// cel-go's ext.Sets (in Kubernetes' environment from 1.29): sets.contains, sets.equivalent and
// sets.intersects over lists, with CEL equality, so that numerically equal values of different
// kinds match (`sets.contains([1], [1.0])` is true) as cel-go's Equal does.
// The names contain a dot: they are global functions the checker resolves by qualified name.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "controller/cel/internal/function.h"

namespace gpuprofile::cel::internal {
namespace {

constexpr int kSetsIntroducedMinor = 29;
constexpr char kSetsLibrary[] = "ext.Sets";

bool ListHas(const ListValue& list, const Value& v) {
  for (size_t i = 0; i < list.size(); ++i) {
    if (Equal(list.Get(i), v).IsTrue()) return true;
  }
  return false;
}

// Every element of `sub` is in `list` (the empty list is contained in every list).
bool ContainsAll(const ListValue& list, const ListValue& sub) {
  for (size_t i = 0; i < sub.size(); ++i) {
    if (!ListHas(list, sub.Get(i))) return false;
  }
  return true;
}

bool Intersects(const ListValue& a, const ListValue& b) {
  for (size_t i = 0; i < b.size(); ++i) {
    if (ListHas(a, b.Get(i))) return true;
  }
  return false;
}

void AddSetsFunction(FunctionRegistry& registry, absl::string_view name, std::string id,
                     FunctionImpl impl) {
  const Type list_t = Type::List(Type::Param("T"));
  Overload o = MakeOverload(std::move(id), {list_t, list_t}, Type::Bool(), std::move(impl));
  o.gate = Gate{kSetsIntroducedMinor, kSetsLibrary};
  registry.Add(name, std::move(o));
}

}  // namespace

void RegisterSetsLibrary(FunctionRegistry& registry) {
  AddSetsFunction(registry, "sets.contains", "list_sets_contains_list",
                  [](absl::Span<const Value> a) {
                    return Value::Bool(ContainsAll(a[0].list_value(), a[1].list_value()));
                  });
  AddSetsFunction(registry, "sets.equivalent", "list_sets_equivalent_list",
                  [](absl::Span<const Value> a) {
                    return Value::Bool(ContainsAll(a[0].list_value(), a[1].list_value()) &&
                                       ContainsAll(a[1].list_value(), a[0].list_value()));
                  });
  AddSetsFunction(registry, "sets.intersects", "list_sets_intersects_list",
                  [](absl::Span<const Value> a) {
                    return Value::Bool(Intersects(a[0].list_value(), a[1].list_value()));
                  });
}

}  // namespace gpuprofile::cel::internal
