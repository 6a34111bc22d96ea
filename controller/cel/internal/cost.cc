// File: controller/cel/internal/cost.cc
// Static cost estimation with the behaviour of cel-go's checker estimator (checker/cost.go), the
// Kubernetes library estimator (k8s.io/apiserver pkg/cel/library/cost.go) and the DRA size
// estimator (k8s.io/dynamic-resource-allocation cel/compile.go), so that the numbers equal what
// the API server compares against CELSelectorExpressionMaxCost.
//
// The estimate is an interval [min, max] per node. Besides costs, the walk tracks for each node:
//  - a size estimate (string length, list/map element count) where one is known: literals, inline
//    lists and maps, results of size-preserving calls, and whatever the DRA size estimator knows
//    about the `device` variable;
//  - the field path from a declared variable (`device`, `attributes`, `@values`, `name`), which is
//    what the DRA size estimator looks sizes up by;
//  - entry sizes of inline lists and maps, so that loop variables over them are sized.
#include "controller/cel/internal/cost.h"

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "controller/cel/internal/operators.h"

namespace gpuprofile::cel::internal {
namespace {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

// cel-go common/cost.go.
constexpr uint64_t kSelectAndIdentCost = 1;
constexpr uint64_t kConstCost = 0;
constexpr uint64_t kListCreateBaseCost = 10;
constexpr uint64_t kMapCreateBaseCost = 30;
constexpr uint64_t kStructCreateBaseCost = 40;
constexpr double kStringTraversalCostFactor = 0.1;
constexpr double kRegexStringLengthCostFactor = 0.25;

// Kubernetes authorization library: two checks per expression at most.
constexpr uint64_t kAuthzCheckCost = 350000;

// k8s.io/api resource limits the DRA size estimator derives sizes from.
constexpr uint64_t kDriverNameMaxLength = 63;
constexpr uint64_t kDeviceMaxDomainLength = 63;
constexpr uint64_t kDeviceMaxIdLength = 32;
constexpr uint64_t kDeviceAttributeMaxValueLength = 64;
constexpr uint64_t kMaxAttributesAndCapacitiesPerDevice = 32;

// ceil(a / b) in float arithmetic as Kubernetes computes it, saturating.
uint64_t CeilDiv(uint64_t a, uint64_t b) {
  const double c = std::ceil(static_cast<double>(a) / static_cast<double>(b));
  return c >= std::ldexp(1.0, 64) ? std::numeric_limits<uint64_t>::max() : static_cast<uint64_t>(c);
}

uint64_t AddSat(uint64_t a, uint64_t b) { return b > 0 && a > kMax - b ? kMax : a + b; }
uint64_t MulSat(uint64_t a, uint64_t b) { return b != 0 && a > kMax / b ? kMax : a * b; }

// x * factor rounded up, saturating (cel-go multiplyByCostFactor, in the same float arithmetic).
uint64_t MulFactor(uint64_t x, double factor) {
  const double xf = static_cast<double>(x);
  if (xf > 0 && factor > 0 && xf > static_cast<double>(kMax) / factor) return kMax;
  const double c = std::ceil(xf * factor);
  if (c >= std::ldexp(1.0, 64)) return kMax;
  return static_cast<uint64_t>(c);
}

// An interval of sizes or of costs (cel-go keeps two identical types for them).
struct CostRange {
  uint64_t min = 0;
  uint64_t max = 0;

  static CostRange Fixed(uint64_t v) { return CostRange{v, v}; }
  static CostRange Unknown() { return CostRange{0, kMax}; }

  CostRange Add(const CostRange& o) const {
    return CostRange{AddSat(min, o.min), AddSat(max, o.max)};
  }
  CostRange Multiply(const CostRange& o) const {
    return CostRange{MulSat(min, o.min), MulSat(max, o.max)};
  }
  CostRange Factor(double f) const { return CostRange{MulFactor(min, f), MulFactor(max, f)}; }
  CostRange Union(const CostRange& o) const {
    return CostRange{o.min < min ? o.min : min, o.max > max ? o.max : max};
  }
};

// Key and value sizes of the entries of an inline list (key = index) or map.
struct EntrySize {
  Type::Kind container = Type::Kind::kDyn;  // kList or kMap
  CostRange key;
  CostRange val;
};

std::optional<EntrySize> UnionEntries(const std::optional<EntrySize>& a,
                                      const std::optional<EntrySize>& b) {
  if (!a || !b) return std::nullopt;
  return EntrySize{a->container, a->key.Union(b->key), a->val.Union(b->val)};
}

using Path = std::vector<std::string>;

Path AppendCost(Path p, std::string element) {
  p.push_back(std::move(element));
  return p;
}

bool IsCostAccumulatorName(const std::string& name) {
  return name == op::kAccumulatorVar || name == "__result__";
}

// What a function estimator sees of an argument or receiver (cel-go's AstNode).
struct Node {
  const Expr* expr = nullptr;  // null for the element pseudo-node of a list
  Path path;                   // empty when the node is not reachable from a variable
  Type type;
  std::optional<CostRange> computed_size;
};

struct CallEstimate {
  CostRange cost;
  std::optional<CostRange> result_size;
};

// ---- The DRA size estimator (k8s.io/dynamic-resource-allocation cel/compile.go) ----

// The declared shape of `device`, as the estimator walks it.
enum class DeviceNode {
  kDevice,
  kDriver,
  kAllowMultipleAllocations,
  kAttributesByDomain,  // map(domain, map(id, attribute))
  kAttributes,          // map(id, attribute)
  kAttribute,
  kCapacityByDomain,  // map(domain, map(id, quantity))
  kCapacity,          // map(id, quantity)
  kQuantity,
  kDomain,
  kId,
};

uint64_t MaxElements(DeviceNode n) {
  switch (n) {
    case DeviceNode::kDevice: return 0;
    case DeviceNode::kDriver: return kDriverNameMaxLength;
    case DeviceNode::kAllowMultipleAllocations: return 1;
    case DeviceNode::kAttributesByDomain:
    case DeviceNode::kAttributes:
    case DeviceNode::kCapacityByDomain:
    case DeviceNode::kCapacity:
      return kMaxAttributesAndCapacitiesPerDevice;
    case DeviceNode::kAttribute: return kDeviceAttributeMaxValueLength;
    case DeviceNode::kQuantity: return 0;
    case DeviceNode::kDomain: return kDeviceMaxDomainLength;
    case DeviceNode::kId: return kDeviceMaxIdLength;
  }
  return 0;
}

// One step down the declared shape, or nullopt where the declaration says nothing.
std::optional<DeviceNode> DeviceNodeStep(DeviceNode n, const std::string& element) {
  const bool values = element == "@items" || element == "@values";
  const bool keys = element == "@keys";
  switch (n) {
    case DeviceNode::kDevice:
      if (element == "driver") return DeviceNode::kDriver;
      if (element == "attributes") return DeviceNode::kAttributesByDomain;
      if (element == "capacity") return DeviceNode::kCapacityByDomain;
      if (element == "allowMultipleAllocations") return DeviceNode::kAllowMultipleAllocations;
      return std::nullopt;
    case DeviceNode::kAttributesByDomain:
      if (values) return DeviceNode::kAttributes;
      if (keys) return DeviceNode::kDomain;
      return std::nullopt;
    case DeviceNode::kAttributes:
      // Attribute maps are also read with field syntax (`.name`): every id has the same bound.
      if (keys) return DeviceNode::kId;
      return DeviceNode::kAttribute;
    case DeviceNode::kCapacityByDomain:
      if (values) return DeviceNode::kCapacity;
      if (keys) return DeviceNode::kDomain;
      return std::nullopt;
    case DeviceNode::kCapacity:
      if (values) return DeviceNode::kQuantity;
      if (keys) return DeviceNode::kId;
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

std::optional<CostRange> EstimateDeviceSize(const Path& path) {
  if (path.empty() || path[0] != kDeviceVariable) return std::nullopt;
  DeviceNode n = DeviceNode::kDevice;
  for (size_t i = 1; i < path.size(); ++i) {
    std::optional<DeviceNode> next = DeviceNodeStep(n, path[i]);
    if (!next) return std::nullopt;
    n = *next;
  }
  return CostRange{0, MaxElements(n)};
}

// Whether a type has a size known from the type alone (cel-go isScalar).
bool IsScalar(const Type& t) {
  switch (t.kind()) {
    case Type::Kind::kBool:
    case Type::Kind::kDouble:
    case Type::Kind::kDuration:
    case Type::Kind::kInt:
    case Type::Kind::kTimestamp:
    case Type::Kind::kUint:
      return true;
    case Type::Kind::kOptional:
      return IsScalar(t.params()[0]);
    default:
      return false;
  }
}

// Number of code points of UTF-8 text (CEL's string size).
uint64_t CostCodePoints(const std::string& s) {
  uint64_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// The size CEL knows from the expression itself: literals, inline lists and maps.
std::optional<CostRange> LiteralSize(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::kConstant:
      switch (e.constant.kind) {
        case Constant::Kind::kString:
          return CostRange::Fixed(CostCodePoints(e.constant.string_value));
        case Constant::Kind::kBytes: return CostRange::Fixed(e.constant.string_value.size());
        default: return CostRange::Fixed(1);
      }
    case Expr::Kind::kList: return CostRange::Fixed(e.args.size());
    case Expr::Kind::kMap: return CostRange::Fixed(e.entries.size());
    default: return std::nullopt;
  }
}

bool IsConstantBool(const Expr& e, bool value) {
  return e.kind == Expr::Kind::kConstant && e.constant.kind == Constant::Kind::kBool &&
         e.constant.bool_value == value;
}

class Coster {
 public:
  Coster(const CheckedAst& checked, const Environment& env)
      : checked_(checked),
        env_(env),
        sizes_enabled_(env.options().device_selector && env.options().dra_size_estimator) {}

  CostRange Cost(const Expr& e) {
    switch (e.kind) {
      case Expr::Kind::kConstant: return CostRange::Fixed(kConstCost);
      case Expr::Kind::kIdent: return CostIdent(e);
      case Expr::Kind::kSelect: return CostSelect(e);
      case Expr::Kind::kCall: return CostCall(e);
      case Expr::Kind::kList: return CostList(e);
      case Expr::Kind::kMap: return CostMap(e);
      case Expr::Kind::kMessage: return CostMessage(e);
      case Expr::Kind::kComprehension: return IsBind(e) ? CostBind(e) : CostComprehension(e);
    }
    return CostRange{};
  }

 private:
  struct LocalVar {
    Path path;
    std::optional<CostRange> size;
    std::optional<EntrySize> entry_size;
  };

  const Type& TypeOf(const Expr& e) const { return checked_.TypeOf(e); }

  // ---- Paths, sizes and local variables ----

  const LocalVar* PeekLocal(const std::string& name) const {
    auto it = locals_.find(name);
    if (it == locals_.end() || it->second.empty()) return nullptr;
    return &it->second.back();
  }
  void PushLocal(const std::string& name, LocalVar v) { locals_[name].push_back(std::move(v)); }
  void PopLocal(const std::string& name) {
    auto it = locals_.find(name);
    if (it != locals_.end() && !it->second.empty()) it->second.pop_back();
  }

  Path GetPath(const Expr& e) const {
    if (e.kind == Expr::Kind::kIdent) {
      if (const LocalVar* v = PeekLocal(e.name)) return v->path;
    }
    auto it = paths_.find(e.id);
    return it == paths_.end() ? Path{} : it->second;
  }
  void AddPath(const Expr& e, Path p) { paths_[e.id] = std::move(p); }

  // The Kubernetes estimator's size lookup (delegates to the DRA size estimator).
  std::optional<CostRange> EstimateSize(const Path& path) const {
    if (!sizes_enabled_) return std::nullopt;
    return EstimateDeviceSize(path);
  }

  void SetSize(const Expr& e, const std::optional<CostRange>& size) {
    if (size) sizes_[e.id] = *size;
  }

  std::optional<CostRange> ComputeSize(const Expr& e) {
    if (auto it = sizes_.find(e.id); it != sizes_.end()) return it->second;
    if (std::optional<CostRange> s = LiteralSize(e)) return s;
    if (std::optional<CostRange> s = EstimateSize(GetPath(e))) {
      sizes_[e.id] = *s;
      return s;
    }
    if (IsScalar(TypeOf(e))) return CostRange::Fixed(1);
    if (e.kind == Expr::Kind::kIdent) {
      if (const LocalVar* v = PeekLocal(e.name); v != nullptr && v->size) return v->size;
    }
    return std::nullopt;
  }

  CostRange SizeOrUnknown(const Expr& e) { return ComputeSize(e).value_or(CostRange::Unknown()); }
  static CostRange SizeOrUnknown(const Node& n) {
    return n.computed_size.value_or(CostRange::Unknown());
  }

  void SetEntrySize(const Expr& e, const std::optional<EntrySize>& s) {
    if (s) entry_sizes_[e.id] = *s;
  }
  std::optional<EntrySize> ComputeEntrySize(const Expr& e) const {
    if (auto it = entry_sizes_.find(e.id); it != entry_sizes_.end()) return it->second;
    if (e.kind == Expr::Kind::kIdent) {
      if (const LocalVar* v = PeekLocal(e.name); v != nullptr && v->entry_size) {
        return v->entry_size;
      }
    }
    return std::nullopt;
  }

  void CopySizeEstimates(const Expr& dst, const Expr& src) {
    SetSize(dst, ComputeSize(src));
    SetEntrySize(dst, ComputeEntrySize(src));
  }

  Node MakeNode(const Expr& e) {
    Node n;
    n.expr = &e;
    n.path = GetPath(e);
    // Only paths rooted at declared variables are handed out; accumulators have none.
    if (!n.path.empty() && IsCostAccumulatorName(n.path[0])) n.path.clear();
    n.type = TypeOf(e);
    n.computed_size = ComputeSize(e);
    return n;
  }

  // ---- Node kinds ----

  CostRange CostIdent(const Expr& e) {
    if (const LocalVar* v = PeekLocal(e.name)) {
      AddPath(e, v->path);
    } else {
      AddPath(e, Path{e.name});
    }
    return CostRange::Fixed(kSelectAndIdentCost);
  }

  CostRange CostSelect(const Expr& e) {
    if (e.test_only) {
      // has(): the presence test costs 1, the operand what it costs.
      return CostRange::Fixed(kSelectAndIdentCost).Add(Cost(*e.operand));
    }
    CostRange sum = Cost(*e.operand);
    const Type& operand = TypeOf(*e.operand);
    if (operand.kind() == Type::Kind::kMap || operand.kind() == Type::Kind::kTypeParam ||
        env_.IsMessageType(operand)) {
      sum = sum.Add(CostRange::Fixed(kSelectAndIdentCost));
    }
    AddPath(e, AppendCost(GetPath(*e.operand), e.name));
    return sum;
  }

  CostRange CostList(const Expr& e) {
    CostRange sum;
    CostRange item{kMax, 0};
    if (e.args.empty()) item.min = 0;
    for (const ExprPtr& a : e.args) {
      sum = sum.Add(Cost(*a));
      item = item.Union(SizeOrUnknown(*a));
    }
    SetEntrySize(e, EntrySize{Type::Kind::kList, CostRange::Fixed(1), item});
    return sum.Add(CostRange::Fixed(kListCreateBaseCost));
  }

  CostRange CostMap(const Expr& e) {
    CostRange sum;
    CostRange key{kMax, 0}, val{kMax, 0};
    if (e.entries.empty()) key.min = val.min = 0;
    for (const CreateEntry& entry : e.entries) {
      sum = sum.Add(Cost(*entry.map_key));
      sum = sum.Add(Cost(*entry.value));
      key = key.Union(SizeOrUnknown(*entry.map_key));
      val = val.Union(SizeOrUnknown(*entry.value));
    }
    SetEntrySize(e, EntrySize{Type::Kind::kMap, key, val});
    return sum.Add(CostRange::Fixed(kMapCreateBaseCost));
  }

  CostRange CostMessage(const Expr& e) {
    CostRange sum;
    for (const CreateEntry& entry : e.entries) sum = sum.Add(Cost(*entry.value));
    return sum.Add(CostRange::Fixed(kStructCreateBaseCost));
  }

  // `cel.bind(v, init, expr)`: a comprehension over an empty list whose loop never runs and whose
  // accumulator is the bound variable.
  static bool IsBind(const Expr& e) {
    return e.iter_range->kind == Expr::Kind::kList && e.iter_range->args.empty() &&
           IsConstantBool(*e.loop_condition, false) && !IsCostAccumulatorName(e.accu_var);
  }

  void PushAccumulator(const std::string& name, const Expr& init) {
    PushLocal(name, LocalVar{GetPath(init), ComputeSize(init), ComputeEntrySize(init)});
  }

  CostRange CostBind(const Expr& e) {
    CostRange sum = Cost(*e.iter_range);  // bindings are lazy: the empty range is all that is paid
    sum = sum.Add(Cost(*e.accu_init));
    PushAccumulator(e.accu_var, *e.accu_init);
    sum = sum.Add(Cost(*e.result));
    PopLocal(e.accu_var);
    CopySizeEstimates(e, *e.result);
    return sum;
  }

  // Pushes a loop variable over `range`: the key/index (`keys`) or the value/element.
  void PushIterVar(const std::string& name, const Expr& range, bool single, bool keys) {
    std::optional<EntrySize> entry = ComputeEntrySize(range);
    Type::Kind container = entry ? entry->container : TypeOf(range).kind();
    const bool list = container == Type::Kind::kList;
    std::optional<CostRange> size;
    std::string sub;
    if (single) {
      sub = list ? "@items" : "@keys";
      if (entry) size = list ? entry->val : entry->key;
    } else if (keys) {
      sub = list ? "@indices" : "@keys";
      if (entry) size = entry->key;
    } else {
      sub = list ? "@items" : "@values";
      if (entry) size = entry->val;
    }
    PushLocal(name, LocalVar{AppendCost(GetPath(range), sub), size, std::nullopt});
  }

  CostRange CostComprehension(const Expr& e) {
    CostRange sum = Cost(*e.iter_range);
    sum = sum.Add(Cost(*e.accu_init));
    PushAccumulator(e.accu_var, *e.accu_init);
    const bool two = !e.iter_var2.empty();
    if (two) {
      PushIterVar(e.iter_var, *e.iter_range, false, true);
      PushIterVar(e.iter_var2, *e.iter_range, false, false);
    } else {
      PushIterVar(e.iter_var, *e.iter_range, true, false);
    }
    const CostRange loop = Cost(*e.loop_condition);
    const CostRange step = Cost(*e.loop_step);
    PopLocal(e.iter_var);
    if (two) PopLocal(e.iter_var2);
    sum = sum.Add(Cost(*e.result));
    PopLocal(e.accu_var);

    const CostRange range_count = SizeOrUnknown(*e.iter_range);
    const CostRange per_iteration = step.Add(loop);
    sum = sum.Add(CostRange{MulSat(range_count.min, per_iteration.min),
                        MulSat(range_count.max, per_iteration.max)});

    switch (e.accu_init->kind) {
      case Expr::Kind::kConstant:
        SetSize(e, ComputeSize(*e.accu_init));
        break;
      case Expr::Kind::kList:
      case Expr::Kind::kMap:
        SetSize(e, range_count);
        SetEntrySize(e, ComputeEntrySize(*e.loop_step));
        break;
      default:
        break;
    }
    return sum;
  }

  // The overload ids of a call. The checker leaves the special forms it evaluates itself without
  // references; cel-go knows them by these ids.
  std::vector<std::string> OverloadIds(const Expr& e) const {
    auto it = checked_.references.find(e.id);
    if (it != checked_.references.end() && !it->second.overload_ids.empty()) {
      return it->second.overload_ids;
    }
    if (e.name == op::kLogicalAnd) return {"logical_and"};
    if (e.name == op::kLogicalOr) return {"logical_or"};
    if (e.name == op::kConditional) return {"conditional"};
    if (e.name == op::kNotStrictlyFalse) return {"not_strictly_false"};
    return {};
  }

  CostRange CostCall(const Expr& e) {
    // dyn() only disables type checking: 1 plus its argument, sizes pass through.
    if (e.name == "dyn" && e.operand == nullptr && e.args.size() == 1) {
      CostRange c = CostRange::Fixed(1).Add(Cost(*e.args[0]));
      CopySizeEstimates(e, *e.args[0]);
      return c;
    }
    std::vector<CostRange> arg_costs;
    std::vector<Node> args;
    for (const ExprPtr& a : e.args) {
      arg_costs.push_back(Cost(*a));
      args.push_back(MakeNode(*a));
    }
    const std::vector<std::string> ids = OverloadIds(e);
    if (ids.empty()) return CostRange{};

    CostRange sum;
    std::optional<Node> target;
    if (e.operand) {
      sum = Cost(*e.operand);
      target = MakeNode(*e.operand);
    }
    CostRange fn{kMax, 0};
    std::optional<CostRange> result_size;
    for (const std::string& id : ids) {
      CallEstimate c = FunctionCost(e, id, target ? &*target : nullptr, args, arg_costs);
      fn = fn.Union(c.cost);
      if (c.result_size) {
        result_size = result_size ? result_size->Union(*c.result_size) : *c.result_size;
      }
      if ((id == "index_list" || id == "index_map") && !e.args.empty()) {
        std::optional<EntrySize> entry = ComputeEntrySize(*e.args[0]);
        result_size = entry ? std::optional<CostRange>(entry->val) : std::nullopt;
        AddPath(e, AppendCost(GetPath(*e.args[0]), id == "index_list" ? "@items" : "@values"));
      }
      if (!result_size) result_size = ComputeSize(e);
    }
    SetSize(e, result_size);
    return sum.Add(fn);
  }

  // ---- Function costs ----

  CallEstimate FunctionCost(const Expr& e, const std::string& id, const Node* target,
                            const std::vector<Node>& args,
                            const std::vector<CostRange>& arg_costs) {
    CostRange arg_sum;
    for (const CostRange& c : arg_costs) arg_sum = arg_sum.Add(c);
    if (std::optional<CallEstimate> est = OverloadEstimate(e.name, args)) {
      return CallEstimate{est->cost.Add(arg_sum), est->result_size};
    }
    if (std::optional<CallEstimate> est = KubernetesEstimate(e.name, id, target, args)) {
      return CallEstimate{est->cost.Add(arg_sum), est->result_size};
    }
    const double kTraversal = kStringTraversalCostFactor;
    if (id == "string_format") {
      if (target != nullptr && !args.empty()) {
        const CostRange target_size = SizeOrUnknown(*target);
        return CallEstimate{target_size.Factor(kTraversal).Add(arg_sum),
                            target_size.Add(SizeOrUnknown(args[0]))};
      }
    } else if (id == "string_to_bytes") {
      if (args.size() == 1) {
        const CostRange sz = SizeOrUnknown(args[0]);
        return CallEstimate{sz.Factor(kTraversal).Add(arg_sum),
                            CostRange{sz.min, MulSat(sz.max, 4)}};
      }
    } else if (id == "bytes_to_string") {
      if (args.size() == 1) {
        const CostRange sz = SizeOrUnknown(args[0]);
        return CallEstimate{sz.Factor(kTraversal).Add(arg_sum), CostRange{sz.min / 4, sz.max}};
      }
    } else if (id == "strings_quote") {
      if (args.size() == 1) {
        const CostRange sz = SizeOrUnknown(args[0]);
        return CallEstimate{sz.Factor(kTraversal).Add(arg_sum),
                            CostRange{AddSat(sz.min, 2), AddSat(MulSat(sz.max, 2), 2)}};
      }
    } else if (id == "starts_with_string" || id == "ends_with_string") {
      if (args.size() == 1) {
        return CallEstimate{SizeOrUnknown(args[0]).Factor(kTraversal).Add(arg_sum), std::nullopt};
      }
    } else if (id == "in_list") {
      // Membership in a list is linear in the list's size, even for constant lists.
      if (args.size() == 2) {
        return CallEstimate{SizeOrUnknown(args[1]).Factor(1).Add(arg_sum), std::nullopt};
      }
    } else if (id == "matches_string") {
      if (target != nullptr && args.size() == 1) {
        // One added to the string length so that an empty string still pays for the regex;
        // each regex term is guessed to be at least 4 characters long.
        const CostRange str = SizeOrUnknown(*target).Add(CostRange::Fixed(1)).Factor(kTraversal);
        const CostRange regex = SizeOrUnknown(args[0]).Factor(kRegexStringLengthCostFactor);
        return CallEstimate{str.Multiply(regex).Add(arg_sum), std::nullopt};
      }
    } else if (id == "contains_string") {
      if (target != nullptr && args.size() == 1) {
        const CostRange str = SizeOrUnknown(*target).Factor(kTraversal);
        const CostRange sub = SizeOrUnknown(args[0]).Factor(kTraversal);
        return CallEstimate{str.Multiply(sub).Add(arg_sum), std::nullopt};
      }
    } else if (id == "logical_or" || id == "logical_and") {
      // Short-circuit: the minimum is the left side alone.
      const CostRange& lhs = arg_costs[0];
      const CostRange& rhs = arg_costs[1];
      return CallEstimate{CostRange{lhs.min, lhs.Add(rhs).max}, std::nullopt};
    } else if (id == "conditional") {
      const CostRange size = SizeOrUnknown(args[1]).Union(SizeOrUnknown(args[2]));
      SetEntrySize(e, UnionEntries(ComputeEntrySize(*e.args[1]), ComputeEntrySize(*e.args[2])));
      return CallEstimate{arg_costs[0].Add(arg_costs[1].Union(arg_costs[2])), size};
    } else if (id == "add_string" || id == "add_bytes" || id == "add_list") {
      if (args.size() == 2) {
        const CostRange size = SizeOrUnknown(args[0]).Add(SizeOrUnknown(args[1]));
        SetEntrySize(e, UnionEntries(ComputeEntrySize(*e.args[0]), ComputeEntrySize(*e.args[1])));
        if (id == "add_list") {
          // Concatenating lists is O(1); it is handled here only to track the size.
          return CallEstimate{CostRange::Fixed(1).Add(arg_sum), size};
        }
        return CallEstimate{size.Factor(kTraversal).Add(arg_sum), size};
      }
    } else if (IsStringOrBytesComparison(id) || id == "equals" || id == "not_equals") {
      // Comparing is linear in the shorter operand; two scalars cost 1.
      const CostRange lhs = SizeOrUnknown(args[0]);
      const CostRange rhs = SizeOrUnknown(args[1]);
      const uint64_t smallest_max = rhs.max < lhs.max ? rhs.max : lhs.max;
      const CostRange c{smallest_max > 0 ? 1u : 0u, smallest_max};
      return CallEstimate{c.Factor(kTraversal).Add(arg_sum), std::nullopt};
    }
    // Everything else is O(1).
    return CallEstimate{CostRange::Fixed(1).Add(arg_sum), std::nullopt};
  }

  static bool IsStringOrBytesComparison(const std::string& id) {
    for (const char* prefix : {"less_", "less_equals_", "greater_", "greater_equals_"}) {
      for (const char* kind : {"string", "bytes"}) {
        if (id == std::string(prefix) + kind) return true;
      }
    }
    return false;
  }

  // Estimators the cel-go extensions register per overload (ext.Sets).
  std::optional<CallEstimate> OverloadEstimate(const std::string& function,
                                               const std::vector<Node>& args) {
    double factor = 0;
    if (function == "sets.contains" || function == "sets.intersects") {
      factor = 1;
    } else if (function == "sets.equivalent") {
      factor = 2;  // containment both ways
    } else {
      return std::nullopt;
    }
    if (args.size() != 2) return std::nullopt;
    const CostRange product = LibrarySize(args[0]).Multiply(LibrarySize(args[1]));
    return CallEstimate{product.Factor(factor).Add(CostRange::Fixed(1)), std::nullopt};
  }

  // The Kubernetes library estimator's size of a node: computed, else the size estimator's,
  // else unknown.
  CostRange LibrarySize(const Node& n) const {
    if (n.computed_size) return *n.computed_size;
    if (std::optional<CostRange> s = EstimateSize(n.path)) return *s;
    return CostRange::Unknown();
  }

  // The pseudo-node for the elements of a list (for a map, cel-go's first type parameter is the
  // key), or nullopt when the type has no parameters (strings).
  static std::optional<Node> ElementNode(const Node& list) {
    if (list.type.params().empty()) return std::nullopt;
    Node el;
    el.type = list.type.params()[0];
    if (!list.path.empty()) el.path = AppendCost(list.path, "@items");
    return el;
  }

  // k8s.io/apiserver pkg/cel/library/cost.go EstimateCallCost: by function name.
  std::optional<CallEstimate> KubernetesEstimate(const std::string& fn, const std::string& id,
                                                 const Node* target,
                                                 const std::vector<Node>& args) const {
    const double kTraversal = kStringTraversalCostFactor;
    auto fixed = [](uint64_t c) { return CallEstimate{CostRange::Fixed(c), std::nullopt}; };
    auto is_one_of = [&fn](std::initializer_list<const char*> names) {
      for (const char* n : names) {
        if (fn == n) return true;
      }
      return false;
    };

    // The DRA estimator (dynamic-resource-allocation cel/compile.go): `includes` looks at no more
    // than ResourceSliceMaxAttributeValuesPerDevice values, whatever the receiver's size.
    if (fn == "includes" && id == kDraIncludesOverload && target != nullptr) {
      return CallEstimate{CostRange{0, kDraIncludesMaxValues}, std::nullopt};
    }
    if (fn == "check") return fixed(kAuthzCheckCost);
    if (is_one_of({"serviceAccount", "path", "group", "resource", "subresource", "namespace",
                   "name", "allowed", "reason", "error", "errored"})) {
      return fixed(1);
    }
    if (is_one_of({"isSorted", "sum", "max", "min", "indexOf", "lastIndexOf"})) {
      if (target == nullptr) return std::nullopt;
      if (std::optional<Node> el = ElementNode(*target)) {
        // One comparison per element, plus a traversal for string and bytes elements.
        CostRange el_cost = CostRange::Fixed(1);
        const Type::Kind k = el->type.kind();
        if (k == Type::Kind::kString || k == Type::Kind::kBytes) {
          el_cost = el_cost.Add(LibrarySize(*el).Factor(kTraversal));
        }
        const CostRange n = LibrarySize(*target);
        return CallEstimate{CostRange{MulSat(n.min, el_cost.min), MulSat(n.max, el_cost.max)},
                            std::nullopt};
      }
      return CallEstimate{LibrarySize(*target).Factor(kTraversal), std::nullopt};
    }
    if (fn == "url") {
      if (args.size() != 1) return std::nullopt;
      return CallEstimate{LibrarySize(args[0]).Factor(kTraversal), std::nullopt};
    }
    if (is_one_of({"lowerAscii", "upperAscii", "substring", "trim"})) {
      if (target == nullptr) return std::nullopt;
      const CostRange sz = LibrarySize(*target);
      return CallEstimate{sz.Factor(kTraversal), sz};
    }
    if (fn == "replace") {
      if (target == nullptr || args.size() < 2) return std::nullopt;
      return ReplaceEstimate(LibrarySize(*target), LibrarySize(args[0]), LibrarySize(args[1]));
    }
    if (fn == "split") {
      if (target == nullptr) return std::nullopt;
      const CostRange sz = LibrarySize(*target);
      // Worst case: an empty separator returns every character; a constant limit caps it.
      uint64_t max = sz.max;
      if (args.size() > 1 && args[1].expr != nullptr &&
          args[1].expr->kind == Expr::Kind::kConstant) {
        const Constant& c = args[1].expr->constant;
        if (c.kind == Constant::Kind::kInt && c.int_value >= 0) {
          max = static_cast<uint64_t>(c.int_value);
        } else if (c.kind == Constant::Kind::kUint) {
          max = c.uint_value;
        }
      }
      return CallEstimate{sz.Factor(2 * kTraversal), CostRange{0, max}};
    }
    if (fn == "join") {
      if (target == nullptr) return std::nullopt;
      CostRange sz;
      const CostRange list_size = LibrarySize(*target);
      if (std::optional<Node> el = ElementNode(*target)) {
        sz = list_size.Multiply(LibrarySize(*el));
      }
      if (!args.empty()) {
        const CostRange sep = LibrarySize(args[0]);
        const CostRange separators{list_size.min > 0 ? list_size.min - 1 : 0,
                               list_size.max > 0 ? list_size.max - 1 : 0};
        sz = sz.Add(sep.Multiply(separators));
      }
      return CallEstimate{sz.Factor(kTraversal), sz};
    }
    if (fn == "find" || fn == "findAll") {
      if (target == nullptr || args.empty()) return std::nullopt;
      const CostRange sz = LibrarySize(*target);
      const CostRange str = sz.Add(CostRange::Fixed(1)).Factor(kTraversal);
      const CostRange regex = LibrarySize(args[0]).Factor(kRegexStringLengthCostFactor);
      return CallEstimate{str.Multiply(regex), CostRange{0, sz.max}};
    }
    if (fn == "cidr" || fn == "isIP" || fn == "isCIDR") {
      // Only for a receiver, which these global functions never have: then the default applies.
      if (target == nullptr || args.empty()) return std::nullopt;
      return CallEstimate{LibrarySize(args[0]).Factor(kTraversal), std::nullopt};
    }
    if (fn == "ip") {
      if (target != nullptr && !args.empty()) {
        if (id == "cidr_ip") return fixed(1);
        return CallEstimate{LibrarySize(args[0]).Factor(kTraversal), std::nullopt};
      }
      if (target != nullptr) return fixed(1);  // cidr.ip(): a field access
      return std::nullopt;
    }
    if (fn == "ip.isCanonical") {
      if (target == nullptr || args.empty()) return std::nullopt;
      return CallEstimate{LibrarySize(args[0]).Factor(2 * kTraversal), std::nullopt};
    }
    if (is_one_of({"masked", "prefixLength", "family", "isUnspecified", "isLoopback",
                   "isLinkLocalMulticast", "isLinkLocalUnicast"})) {
      return fixed(1);
    }
    if (fn == "containsIP" || fn == "containsCIDR") {
      if (target == nullptr || args.empty()) return std::nullopt;
      // Comparing two IPv4 or IPv6 byte strings (4 or 16 bytes).
      const CostRange ip{4, 16};
      CostRange c = ip.Add(ip).Factor(kTraversal);
      if (fn == "containsCIDR") {
        c = c.Add(ip.Factor(kTraversal)).Add(CostRange::Fixed(1));  // masking the base CIDR
      }
      if (id == "cidr_contains_ip_string" || id == "cidr_contains_cidr_string") {
        c = c.Add(LibrarySize(args[0]).Factor(kTraversal));  // parsing the string argument
      }
      return CallEstimate{c, std::nullopt};
    }
    if (fn == "quantity" || fn == "isQuantity") {
      // Like cidr(): Kubernetes only estimates these with a receiver, so the default applies.
      if (target == nullptr || args.empty()) return std::nullopt;
      return CallEstimate{LibrarySize(args[0]).Factor(kTraversal), std::nullopt};
    }
    if (is_one_of({"sign", "asInteger", "isInteger", "asApproximateFloat", "isGreaterThan",
                   "isLessThan", "compareTo", "add", "sub"})) {
      return fixed(1);
    }
    return std::nullopt;
  }

  // `s.replace(old, new)`: traversal plus construction; the result size follows from how many
  // replacements fit into the input.
  static CallEstimate ReplaceEstimate(const CostRange& sz, const CostRange& to_replace,
                                      const CostRange& replace_with) {
    CostRange count, retained;
    if (to_replace.min == 0) {
      // An empty pattern surrounds every character with the replacement.
      count.max = sz.max < kMax ? sz.max + 1 : sz.max;
      retained.max = sz.max;
    } else if (replace_with.max <= to_replace.min) {
      count.max = 0;
      retained.max = sz.max;
    } else {
      count.max = CeilDiv(sz.max, to_replace.min);
    }
    if (to_replace.max == 0) {
      count.min = sz.min < kMax ? sz.min + 1 : sz.min;
      retained.min = sz.min;
    } else if (to_replace.max <= replace_with.min) {
      count.min = 0;
      retained.min = sz.min;
    } else {
      count.min = CeilDiv(sz.min, to_replace.max);
    }
    const CostRange size = count.Multiply(replace_with).Add(retained);
    return CallEstimate{sz.Factor(2 * kStringTraversalCostFactor), size};
  }

  const CheckedAst& checked_;
  const Environment& env_;
  const bool sizes_enabled_;
  absl::flat_hash_map<int64_t, Path> paths_;
  absl::flat_hash_map<int64_t, CostRange> sizes_;
  absl::flat_hash_map<int64_t, EntrySize> entry_sizes_;
  absl::flat_hash_map<std::string, std::vector<LocalVar>> locals_;
};

}  // namespace

CostEstimate EstimateCost(const CheckedAst& checked, const Environment& env) {
  Coster coster(checked, env);
  const CostRange r = coster.Cost(*checked.ast.root);
  return CostEstimate{r.min, r.max};
}

}  // namespace gpuprofile::cel::internal
