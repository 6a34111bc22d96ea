// File: controller/cel/internal/interpreter.cc
#include "controller/cel/internal/interpreter.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "controller/cel/internal/container.h"
#include "controller/cel/internal/operators.h"
#include "controller/cel/internal/type_names.h"
#include "controller/cel/program.h"

namespace gpuprofile::cel::internal {
namespace {

using StepPtr = std::unique_ptr<Step>;

// Constant folding never iterates (comprehensions are not folded), but give it a budget anyway.
constexpr uint64_t kFoldIterations = 1000000;

Value ConstantValue(const Constant& c) {
  switch (c.kind) {
    case Constant::Kind::kNull: return Value::Null();
    case Constant::Kind::kBool: return Value::Bool(c.bool_value);
    case Constant::Kind::kInt: return Value::Int(c.int_value);
    case Constant::Kind::kUint: return Value::Uint(c.uint_value);
    case Constant::Kind::kDouble: return Value::Double(c.double_value);
    case Constant::Kind::kString: return Value::String(c.string_value);
    case Constant::Kind::kBytes: return Value::Bytes(c.string_value);
  }
  return Value::Null();
}

// `operand.field`, or `has(operand.field)` when test_only. As in cel-go, selecting through an
// optional value stays optional: a none stays none (and is not present), a missing map key
// gives none, a present one optional.of(value); a value that supports no field selection is an
// error either way.
Value SelectField(const Value& operand, const std::string& field, bool test_only) {
  if (operand.is_error()) return operand;
  if (operand.kind() == ValueKind::kOptional) {
    if (!operand.optional_has_value()) return test_only ? Value::Bool(false) : operand;
    const Value& inner = operand.optional_value();
    if (inner.kind() != ValueKind::kMap) return Value::NoSuchKey(field);
    std::optional<Value> v = inner.map_value().FindString(field);
    if (test_only) return Value::Bool(v.has_value());
    return v ? Value::OptionalOf(*std::move(v)) : Value::OptionalNone();
  }
  if (operand.kind() == ValueKind::kMap) {
    if (test_only) return Value::Bool(operand.map_value().Contains(Value::String(field)));
    std::optional<Value> v = operand.map_value().FindString(field);
    return v ? std::move(*v) : Value::NoSuchKey(field);
  }
  if (test_only) return Value::NoSuchOverload("has");
  return Value::Error(absl::StrCat("type '", operand.TypeName(),
                                   "' does not support field selection"));
}

class ConstStep final : public Step {
 public:
  explicit ConstStep(Value v) : value_(std::move(v)) {}
  Value Evaluate(Frame&) const override { return value_; }
  const Value* EvaluateRef(Frame&) const override { return &value_; }
  const Value* constant() const override { return &value_; }

 private:
  Value value_;
};

class VariableStep final : public Step {
 public:
  VariableStep(size_t index, std::string name) : index_(index), name_(std::move(name)) {}
  const Value* EvaluateRef(Frame& frame) const override {
    return index_ < frame.variables.size() ? &frame.variables[index_] : nullptr;
  }
  Value Evaluate(Frame& frame) const override {
    if (index_ < frame.variables.size()) return frame.variables[index_];
    if (frame.activation != nullptr) {
      if (std::optional<Value> v = frame.activation->FindVariable(name_)) return *v;
    }
    return Value::Error(absl::StrCat("no such attribute: ", name_));
  }

  size_t index() const { return index_; }

 private:
  size_t index_;
  std::string name_;
};

// A name that is neither local nor declared: looked up in the activation at run time, trying
// the qualified candidates (`a.b.c`, then `a.b` + field c, then `a` + fields b.c).
class DynamicNameStep final : public Step {
 public:
  // candidates: (name, fields to select after it), most specific first.
  explicit DynamicNameStep(std::vector<std::pair<std::string, std::vector<std::string>>> c)
      : candidates_(std::move(c)) {}
  Value Evaluate(Frame& frame) const override {
    if (frame.activation != nullptr) {
      for (const auto& [name, fields] : candidates_) {
        std::optional<Value> v = frame.activation->FindVariable(name);
        if (!v) continue;
        Value cur = *v;
        for (const std::string& f : fields) cur = SelectField(cur, f, /*test_only=*/false);
        return cur;
      }
    }
    return Value::Error(absl::StrCat("no such attribute: ", candidates_.front().first));
  }

 private:
  std::vector<std::pair<std::string, std::vector<std::string>>> candidates_;
};

class LocalStep final : public Step {
 public:
  explicit LocalStep(int slot) : slot_(slot) {}
  Value Evaluate(Frame& frame) const override { return frame.locals[slot_]; }

 private:
  int slot_;
};

class SelectStep final : public Step {
 public:
  SelectStep(StepPtr operand, std::string field, bool test_only)
      : operand_(std::move(operand)), field_(std::move(field)), test_only_(test_only) {}
  Value Evaluate(Frame& frame) const override {
    if (const Value* operand = operand_->EvaluateRef(frame)) {
      if (!test_only_ && operand->kind() == ValueKind::kMap) {
        if (const Value* v = operand->map_value().FindStringRefCached(field_, key_cache_)) {
          return *v;
        }
      }
      return SelectField(*operand, field_, test_only_);
    }
    return SelectField(operand_->Evaluate(frame), field_, test_only_);
  }
  // A field of a borrowed map is borrowed too.
  const Value* EvaluateRef(Frame& frame) const override {
    if (test_only_) return nullptr;
    const Value* operand = operand_->EvaluateRef(frame);
    if (operand == nullptr || operand->kind() != ValueKind::kMap) return nullptr;
    return operand->map_value().FindStringRefCached(field_, key_cache_);
  }

  const Step& operand() const { return *operand_; }
  const std::string& field() const { return field_; }
  bool test_only() const { return test_only_; }

 private:
  StepPtr operand_;
  std::string field_;
  bool test_only_;
  KeyCache key_cache_;  // where field_ was found last
};

class AndOrStep final : public Step {
 public:
  AndOrStep(StepPtr lhs, StepPtr rhs, bool is_and)
      : lhs_(std::move(lhs)), rhs_(std::move(rhs)), is_and_(is_and) {}
  Value Evaluate(Frame& frame) const override {
    // The short-circuit value: false for &&, true for ||. An error or non-bool on one side is
    // absorbed when the other side decides the result (CEL's commutative logic).
    const bool decisive = !is_and_;
    Value l = lhs_->Evaluate(frame);
    if (l.is_bool() && l.bool_value() == decisive) return l;
    Value r = rhs_->Evaluate(frame);
    if (r.is_bool() && r.bool_value() == decisive) return r;
    if (l.is_bool() && r.is_bool()) return l;
    if (l.is_error()) return l;
    if (r.is_error()) return r;
    return Value::NoSuchOverload(is_and_ ? op::kLogicalAnd : op::kLogicalOr);
  }

 private:
  StepPtr lhs_, rhs_;
  bool is_and_;
};

// A chain of the same logical operator, `t1 && t2 && ... && tn` (or ||), as one step: the terms
// are evaluated in order until one decides the result, in one loop instead of a tree of binary
// steps (the parser balances long chains into trees). Same results as the tree of AndOrSteps:
// the first deciding term decides (any false for &&, any true for ||, whatever the other terms
// are; evaluation stops there, as it does in the tree); when none decides and all are bools the
// result is the other bool; otherwise the terms' values are combined along the original tree
// with AndOrStep's rule, so that the same error is returned.
class LogicChainStep final : public Step {
 public:
  // The tree as built by the planner: leaves index `terms`; inner nodes have both children.
  struct Node {
    int term = -1;  // >= 0 for a leaf
    int lhs = -1, rhs = -1;
  };

  LogicChainStep(std::vector<StepPtr> terms, std::vector<Node> tree, bool is_and)
      : terms_(std::move(terms)), tree_(std::move(tree)), is_and_(is_and) {}

  Value Evaluate(Frame& frame) const override {
    const bool decisive = !is_and_;
    // Filled only once a term is not a bool (then the tree decides which error to return).
    absl::InlinedVector<Value, 8> values;
    for (size_t i = 0; i < terms_.size(); ++i) {
      Value v = terms_[i]->Evaluate(frame);
      if (v.is_bool()) {
        if (v.bool_value() == decisive) return v;
        if (!values.empty()) values.push_back(std::move(v));
        continue;
      }
      if (values.empty()) values.assign(i, Value::Bool(!decisive));
      values.push_back(std::move(v));
    }
    if (values.empty()) return Value::Bool(!decisive);
    return Combine(0, values);
  }

 private:
  // AndOrStep's rule for two non-deciding values, applied along the tree (node 0 is the root).
  Value Combine(int node, absl::Span<const Value> values) const {
    const Node& n = tree_[static_cast<size_t>(node)];
    if (n.term >= 0) return values[static_cast<size_t>(n.term)];
    Value l = Combine(n.lhs, values);
    Value r = Combine(n.rhs, values);
    if (l.is_bool() && r.is_bool()) return l;
    if (l.is_error()) return l;
    if (r.is_error()) return r;
    return Value::NoSuchOverload(is_and_ ? op::kLogicalAnd : op::kLogicalOr);
  }

  std::vector<StepPtr> terms_;
  std::vector<Node> tree_;
  bool is_and_;
};

class ConditionalStep final : public Step {
 public:
  ConditionalStep(StepPtr c, StepPtr t, StepPtr f)
      : cond_(std::move(c)), then_(std::move(t)), else_(std::move(f)) {}
  Value Evaluate(Frame& frame) const override {
    Value c = cond_->Evaluate(frame);
    if (c.is_error()) return c;
    if (!c.is_bool()) return Value::NoSuchOverload(op::kConditional);
    return c.bool_value() ? then_->Evaluate(frame) : else_->Evaluate(frame);
  }

 private:
  StepPtr cond_, then_, else_;
};

class NotStrictlyFalseStep final : public Step {
 public:
  explicit NotStrictlyFalseStep(StepPtr arg) : arg_(std::move(arg)) {}
  Value Evaluate(Frame& frame) const override {
    Value v = arg_->Evaluate(frame);
    return Value::Bool(!v.IsFalse());
  }

 private:
  StepPtr arg_;
};

class CallStep final : public Step {
 public:
  CallStep(std::string function, std::vector<const Overload*> candidates,
           std::vector<StepPtr> args)
      : function_(std::move(function)),
        candidates_(std::move(candidates)),
        args_(std::move(args)) {
    for (const Overload* o : candidates_) all_non_strict_ &= o->non_strict;
  }

  Value Evaluate(Frame& frame) const override {
    absl::InlinedVector<Value, 4> args;
    args.reserve(args_.size());
    for (const StepPtr& a : args_) args.push_back(a->Evaluate(frame));
    return Invoke(args);
  }

  const std::string& function() const { return function_; }
  const std::vector<StepPtr>& args() const { return args_; }
  const std::vector<const Overload*>& candidates() const { return candidates_; }

  // True when every argument is a constant (then the call can be folded at plan time).
  bool HasConstantArgs() const {
    for (const StepPtr& a : args_) {
      if (a->constant() == nullptr) return false;
    }
    return !candidates_.empty();
  }

  Value Invoke(absl::Span<const Value> args) const {
    const Value* first_error = nullptr;
    for (const Value& a : args) {
      if (a.is_error()) {
        first_error = &a;
        break;
      }
    }
    for (const Overload* o : candidates_) {
      if (first_error != nullptr && !o->non_strict) continue;
      bool ok = true;
      for (size_t i = 0; i < args.size() && ok; ++i) {
        ok = args[i].is_error() || o->params[i].AcceptsRuntime(args[i]);
      }
      if (ok) return o->impl(args);
    }
    if (first_error != nullptr) return *first_error;
    return Value::NoSuchOverload(function_);
  }

 private:
  std::string function_;
  std::vector<const Overload*> candidates_;
  std::vector<StepPtr> args_;
  bool all_non_strict_ = true;
};

// `x['key']` with a constant string key, where the overload that dispatch picks for a map and a
// string is the standard `index_map`. A map that stores its values (device maps) is read in
// place, so the result can be borrowed; everything else (absent keys, other maps, lists,
// optionals, errors) goes through the call as before.
class IndexConstStep final : public Step {
 public:
  explicit IndexConstStep(std::unique_ptr<CallStep> call)
      : call_(std::move(call)),
        operand_(call_->args()[0].get()),
        key_(*call_->args()[1]->constant()) {}

  // Whether `call` qualifies: `_[_]` with a constant string key whose first overload accepting
  // (map, string) is `index_map` (map.Find(key), "no such key" when absent).
  static bool Applies(const CallStep& call) {
    if (call.args().size() != 2 || call.args()[0]->constant() != nullptr) return false;
    const Value* key = call.args()[1]->constant();
    if (key == nullptr || key->kind() != ValueKind::kString) return false;
    auto accepts = [](const Type& t, Type::Kind kind) {
      return t.kind() == Type::Kind::kDyn || t.kind() == Type::Kind::kTypeParam ||
             t.kind() == kind;
    };
    for (const Overload* o : call.candidates()) {
      if (o->params.size() == 2 && accepts(o->params[0], Type::Kind::kMap) &&
          accepts(o->params[1], Type::Kind::kString)) {
        return o->id == "index_map" && !o->non_strict;
      }
    }
    return false;
  }

  Value Evaluate(Frame& frame) const override {
    const Value* operand = operand_->EvaluateRef(frame);
    if (operand != nullptr && operand->kind() == ValueKind::kMap) {
      if (const Value* v =
              operand->map_value().FindStringRefCached(key_.string_ref(), key_cache_)) {
        return *v;
      }
    }
    const Value args[2] = {operand != nullptr ? *operand : operand_->Evaluate(frame), key_};
    return call_->Invoke(args);
  }
  const Value* EvaluateRef(Frame& frame) const override {
    const Value* operand = operand_->EvaluateRef(frame);
    if (operand == nullptr || operand->kind() != ValueKind::kMap) return nullptr;
    return operand->map_value().FindStringRefCached(key_.string_ref(), key_cache_);
  }

  const Step& operand() const { return *operand_; }
  const std::string& key() const { return key_.string_ref(); }

 private:
  std::unique_ptr<CallStep> call_;
  const Step* operand_;  // call_'s first argument
  Value key_;
  KeyCache key_cache_;  // where key_ was found last
};

// `x op c` for ==, !=, <, <=, >, >= where c is a constant, without overload dispatch: the same
// results as the standard overloads (CEL equality; ordering within bool, numbers across int,
// uint and double, strings, bytes, timestamps and durations; NaN orders false; anything else
// "no such overload"). Selectors compare an attribute with a literal in nearly every term.
class CompareConstStep final : public Step {
 public:
  enum class Op { kEq, kNe, kLt, kLe, kGt, kGe };
  CompareConstStep(StepPtr operand, Value constant, Op op, bool constant_on_left,
                   std::string function)
      : operand_(std::move(operand)), constant_(std::move(constant)), op_(op),
        constant_on_left_(constant_on_left), function_(std::move(function)) {
    if (constant_.kind() == ValueKind::kString) constant_string_ = constant_.string_value();
  }

  Value Evaluate(Frame& frame) const override {
    Value owned;
    const Value* ref = operand_->EvaluateRef(frame);
    if (ref == nullptr) {
      owned = operand_->Evaluate(frame);
      ref = &owned;
    }
    const Value& x = *ref;
    if (x.is_error()) return x;
    const Value& a = constant_on_left_ ? constant_ : x;
    const Value& b = constant_on_left_ ? x : constant_;
    if (op_ == Op::kEq || op_ == Op::kNe) {
      // Strings equal only strings (CEL has no string coercion): compare the bytes directly,
      // as Equal would after its kind dispatch. Attribute == 'literal' is most selector terms.
      if (x.kind() == ValueKind::kString && constant_string_.has_value()) {
        return Value::Bool((x.string_value() == *constant_string_) == (op_ == Op::kEq));
      }
      Value eq = Equal(a, b);
      if (eq.is_error() || op_ == Op::kEq) return eq;
      return Value::Bool(!eq.bool_value());
    }
    if (!Orderable(a, b)) return Value::NoSuchOverload(function_);
    std::optional<int> c = Compare(a, b);
    if (!c.has_value()) return Value::Bool(false);  // NaN
    switch (op_) {
      case Op::kLt: return Value::Bool(*c < 0);
      case Op::kLe: return Value::Bool(*c <= 0);
      case Op::kGt: return Value::Bool(*c > 0);
      default: return Value::Bool(*c >= 0);
    }
  }

  const Step& operand() const { return *operand_; }
  const Value& constant_value() const { return constant_; }
  Op op() const { return op_; }
  bool constant_on_left() const { return constant_on_left_; }

  static bool Orderable(const Value& a, const Value& b) {
    auto numeric = [](ValueKind k) {
      return k == ValueKind::kInt || k == ValueKind::kUint || k == ValueKind::kDouble;
    };
    if (numeric(a.kind()) && numeric(b.kind())) return true;
    if (a.kind() != b.kind()) return false;
    switch (a.kind()) {
      case ValueKind::kBool: case ValueKind::kString: case ValueKind::kBytes:
      case ValueKind::kTimestamp: case ValueKind::kDuration:
        return true;
      default:
        return false;
    }
  }

 private:
  StepPtr operand_;
  Value constant_;
  // constant_'s text when it is a string (a view of its immutable storage).
  std::optional<absl::string_view> constant_string_;
  Op op_;
  bool constant_on_left_;
  std::string function_;
};

// `x.compareTo(c) op k` with c a constant quantity or semver and k a constant int: the idiom
// selectors use for memory and versions (`...memory.compareTo(quantity('40Gi')) >= 0`). When x
// is a value of c's type, the two are ordered directly (OpaqueValue::CompareTo, the function
// the compareTo() overloads use too) and compared with k, without building the argument list,
// dispatching the call and boxing its int result. Anything else (x of another type, an error,
// a comparison that is not with an int) takes the general path, `fallback`, unchanged.
class CompareToConstStep final : public Step {
 public:
  // `fallback` is the CompareConstStep whose operand is the compareTo() call.
  explicit CompareToConstStep(std::unique_ptr<CompareConstStep> fallback)
      : fallback_(std::move(fallback)),
        call_(static_cast<const CallStep&>(fallback_->operand())),
        receiver_(call_.args()[0].get()),
        argument_(call_.args()[1]->constant()->opaque_value()),
        k_(fallback_->constant_value().int_value()) {}

  // Whether `step` has that shape: the compareTo() call's candidates are exactly the library
  // overloads whose result is OpaqueValue::CompareTo, and k is an int.
  static bool Applies(const CompareConstStep& step) {
    if (step.constant_value().kind() != ValueKind::kInt) return false;
    const auto* call = dynamic_cast<const CallStep*>(&step.operand());
    if (call == nullptr || call->function() != "compareTo" || call->args().size() != 2) {
      return false;
    }
    const Value* c = call->args()[1]->constant();
    if (c == nullptr || c->kind() != ValueKind::kOpaque || call->candidates().empty()) {
      return false;
    }
    for (const Overload* o : call->candidates()) {
      if (o->non_strict || (o->id != "quantity_compare_to" && o->id != "semver_compare_to")) {
        return false;
      }
    }
    return true;
  }

  Value Evaluate(Frame& frame) const override {
    if (const Value* x = receiver_->EvaluateRef(frame);
        x != nullptr && x->kind() == ValueKind::kOpaque) {
      if (std::optional<int> c = x->opaque_value().CompareTo(argument_)) {
        const int64_t a = fallback_->constant_on_left() ? k_ : *c;
        const int64_t b = fallback_->constant_on_left() ? *c : k_;
        switch (fallback_->op()) {
          case CompareConstStep::Op::kEq: return Value::Bool(a == b);
          case CompareConstStep::Op::kNe: return Value::Bool(a != b);
          case CompareConstStep::Op::kLt: return Value::Bool(a < b);
          case CompareConstStep::Op::kLe: return Value::Bool(a <= b);
          case CompareConstStep::Op::kGt: return Value::Bool(a > b);
          case CompareConstStep::Op::kGe: return Value::Bool(a >= b);
        }
      }
    }
    return fallback_->Evaluate(frame);
  }

 private:
  std::unique_ptr<CompareConstStep> fallback_;
  const CallStep& call_;  // fallback_'s operand
  const Step* receiver_;  // call_'s first argument
  const OpaqueValue& argument_;  // call_'s constant second argument
  int64_t k_;
};

// `x in y` without overload dispatch: membership in a list (CEL equality; an element whose
// comparison errs does not match) or among a map's keys. Same results as the `@in` overloads;
// selectors use it for every presence check and product list.
class InStep final : public Step {
 public:
  InStep(StepPtr element, StepPtr container)
      : element_(std::move(element)), container_(std::move(container)) {
    const Value* c = container_->constant();
    if (c != nullptr && c->kind() == ValueKind::kList) {
      constant_list_ = true;
      const ListValue& list = c->list_value();
      for (size_t i = 0; i < list.size(); ++i) {
        Value e = list.Get(i);
        if (e.kind() == ValueKind::kString) constant_strings_.push_back(e.string_ref());
      }
    }
  }
  Value Evaluate(Frame& frame) const override {
    Value x_owned, c_owned;
    const Value* xr = element_->EvaluateRef(frame);
    if (xr == nullptr) {
      x_owned = element_->Evaluate(frame);
      xr = &x_owned;
    }
    const Value* cr = container_->EvaluateRef(frame);
    if (cr == nullptr) {
      c_owned = container_->Evaluate(frame);
      cr = &c_owned;
    }
    return Apply(*xr, *cr);
  }

  // `x in c` for evaluated operands.
  Value Apply(const Value& x, const Value& c) const {
    if (x.is_error()) return x;
    if (c.is_error()) return c;
    if (c.kind() == ValueKind::kMap) return Value::Bool(c.map_value().Contains(x));
    if (c.kind() != ValueKind::kList) return Value::NoSuchOverload(op::kIn);
    const ListValue& list = c.list_value();
    const size_t n = list.size();
    if (x.kind() == ValueKind::kString) {
      // Strings equal only strings: compare bytes directly.
      const std::string& s = x.string_ref();
      if (constant_list_) {
        for (const std::string& e : constant_strings_) {
          if (e == s) return Value::Bool(true);
        }
        return Value::Bool(false);
      }
      for (size_t i = 0; i < n; ++i) {
        Value e = list.Get(i);
        if (e.kind() == ValueKind::kString && e.string_ref() == s) return Value::Bool(true);
      }
      return Value::Bool(false);
    }
    for (size_t i = 0; i < n; ++i) {
      if (Equal(x, list.Get(i)).IsTrue()) return Value::Bool(true);
    }
    return Value::Bool(false);
  }

  const Step& element() const { return *element_; }
  const Step& container() const { return *container_; }

 private:
  StepPtr element_, container_;
  // When the container is a constant list: its string elements, for string membership.
  bool constant_list_ = false;
  std::vector<std::string> constant_strings_;
};

// The sentinel a key-lookup slot holds once the key is known not to be a member: an address no
// Value has, never dereferenced. Storage of a Value's size and alignment, so that the pointer is
// a valid one; a constant address, so that the hot paths compare with it without a call.
alignas(Value) const unsigned char kNotMemberStorage[sizeof(Value)] = {};
inline const Value* NotMember() { return reinterpret_cast<const Value*>(kNotMemberStorage); }

// Looks `key` up in `map` once per evaluation, through cache slot `slot` (see MemberInStep):
// sets `*member` to the key's stored value, or null when it is not a member. False when the map
// cannot answer in one lookup (MapValue::FindMemberRef); the slot then stays unset.
inline bool FindMember(Frame& frame, int slot, const MapValue& map, absl::string_view key,
                       const KeyCache& key_cache, const Value** member) {
  const Value*& known = frame.cache[slot];
  if (known == nullptr) {
    const Value* found = nullptr;
    if (!map.FindMemberRefCached(key, key_cache, &found)) return false;
    known = found != nullptr ? found : NotMember();
  }
  *member = known == NotMember() ? nullptr : known;
  return true;
}

// `'k' in P` where P is an attribute path that the expression also reads as `P.k` or `P['k']`
// (the presence check that guards a read, `'memory' in device.capacity[d] && ...memory`): when
// P's value is a borrowed map that can answer membership and value at once, the lookup is made
// once per evaluation and shared with the read (MemberValueStep, same slot). Same results as
// InStep: membership is what MapValue::Contains says, and anything else (P not a map, not
// borrowed, an error) takes InStep's path.
class MemberInStep final : public Step {
 public:
  // `fallback`'s element is the constant string `k`.
  MemberInStep(std::unique_ptr<InStep> fallback, int slot)
      : fallback_(std::move(fallback)), container_(&fallback_->container()),
        key_(*fallback_->element().constant()), key_string_(key_.string_value()), slot_(slot) {}

  Value Evaluate(Frame& frame) const override {
    const Value* c = container_->EvaluateRef(frame);
    if (c == nullptr) return fallback_->Evaluate(frame);
    if (c->kind() == ValueKind::kMap) {
      const Value* member;
      if (FindMember(frame, slot_, c->map_value(), key_string_, key_cache_, &member)) {
        return Value::Bool(member != nullptr);
      }
    }
    return fallback_->Apply(key_, *c);
  }

 private:
  std::unique_ptr<InStep> fallback_;
  const Step* container_;  // fallback_'s container, P
  Value key_;              // fallback_'s constant element
  std::string key_string_;  // its text
  int slot_;
  KeyCache key_cache_;  // where key_string_ was found last
};

// `P.k` or `P['k']` sharing its lookup with `'k' in P` (MemberInStep, same slot). A key that is
// not a member is read as the plain step reads it (FindStringRef: a map may answer absent keys
// with a default, as a device's attribute domains do); anything that is not a borrowed map takes
// the plain step, `fallback`, unchanged.
class MemberValueStep final : public Step {
 public:
  // `operand` is `fallback`'s operand (P), `key` the field or constant index.
  MemberValueStep(StepPtr fallback, const Step* operand, std::string key, int slot)
      : fallback_(std::move(fallback)), operand_(operand), key_(std::move(key)), slot_(slot) {}

  Value Evaluate(Frame& frame) const override {
    if (const Value* v = EvaluateRef(frame)) return *v;
    return fallback_->Evaluate(frame);
  }
  const Value* EvaluateRef(Frame& frame) const override {
    const Value* c = operand_->EvaluateRef(frame);
    if (c == nullptr || c->kind() != ValueKind::kMap) return nullptr;
    const MapValue& map = c->map_value();
    const Value* member;
    if (FindMember(frame, slot_, map, key_, key_cache_, &member) && member != nullptr) {
      return member;
    }
    return map.FindStringRefCached(key_, key_cache_);
  }

  const Step& operand() const { return *operand_; }
  const std::string& key() const { return key_; }
  int slot() const { return slot_; }

 private:
  StepPtr fallback_;
  const Step* operand_;  // fallback_'s operand
  std::string key_;
  int slot_;
  KeyCache key_cache_;  // where key_ was found last
};

// List and map literals.
class LiteralStep : public Step {
 public:
  // True when every element (key and value) is a constant.
  virtual bool AllConstant() const = 0;
};

class ListStep final : public LiteralStep {
 public:
  bool AllConstant() const override {
    for (const StepPtr& e : elements_) {
      if (e->constant() == nullptr) return false;
    }
    return true;
  }
  ListStep(std::vector<StepPtr> elements, std::vector<bool> optional)
      : elements_(std::move(elements)), optional_(std::move(optional)) {}
  Value Evaluate(Frame& frame) const override {
    std::vector<Value> out;
    out.reserve(elements_.size());
    for (size_t i = 0; i < elements_.size(); ++i) {
      Value v = elements_[i]->Evaluate(frame);
      if (v.is_error()) return v;
      if (optional_[i]) {
        if (v.kind() != ValueKind::kOptional) return Value::NoSuchOverload("optional list element");
        if (!v.optional_has_value()) continue;
        out.push_back(v.optional_value());
      } else {
        out.push_back(std::move(v));
      }
    }
    return Value::List(std::move(out));
  }

 private:
  std::vector<StepPtr> elements_;
  std::vector<bool> optional_;
};

class MapStep final : public LiteralStep {
 public:
  struct Entry {
    StepPtr key, value;
    bool optional;
  };
  explicit MapStep(std::vector<Entry> entries) : entries_(std::move(entries)) {}
  bool AllConstant() const override {
    for (const Entry& e : entries_) {
      if (e.key->constant() == nullptr || e.value->constant() == nullptr) return false;
    }
    return true;
  }
  Value Evaluate(Frame& frame) const override {
    auto map = std::make_shared<HashMapValue>();
    for (const Entry& e : entries_) {
      Value k = e.key->Evaluate(frame);
      if (k.is_error()) return k;
      Value v = e.value->Evaluate(frame);
      if (v.is_error()) return v;
      switch (k.kind()) {
        case ValueKind::kBool: case ValueKind::kInt: case ValueKind::kUint:
        case ValueKind::kString:
          break;
        default:
          return Value::Error(absl::StrCat("unsupported key type: ", k.TypeName()));
      }
      if (e.optional) {
        if (v.kind() != ValueKind::kOptional) return Value::NoSuchOverload("optional map entry");
        if (!v.optional_has_value()) continue;
        v = v.optional_value();
      }
      if (!map->Insert(k, std::move(v))) {
        return Value::Error(absl::StrCat("Failed with repeated key: ", k.DebugString()));
      }
    }
    return Value::Map(std::move(map));
  }

 private:
  std::vector<Entry> entries_;
};

class ComprehensionStep final : public Step {
 public:
  ComprehensionStep(StepPtr range, StepPtr init, StepPtr cond, StepPtr step, StepPtr result,
                    int accu_slot, int var1_slot, int var2_slot)
      : range_(std::move(range)), init_(std::move(init)), cond_(std::move(cond)),
        step_(std::move(step)), result_(std::move(result)), accu_slot_(accu_slot),
        var1_slot_(var1_slot), var2_slot_(var2_slot) {}

  Value Evaluate(Frame& frame) const override {
    Value range = range_->Evaluate(frame);
    if (range.is_error()) return range;
    Value* locals = frame.locals;
    locals[accu_slot_] = init_->Evaluate(frame);
    if (range.kind() == ValueKind::kList) {
      const ListValue& list = range.list_value();
      for (size_t i = 0; i < list.size(); ++i) {
        if (!Spend(frame)) return Value::Error(kBudgetExceeded);
        if (var2_slot_ >= 0) {
          locals[var1_slot_] = Value::Int(static_cast<int64_t>(i));
          locals[var2_slot_] = list.Get(i);
        } else {
          locals[var1_slot_] = list.Get(i);
        }
        if (!Continue(frame)) break;
        locals[accu_slot_] = step_->Evaluate(frame);
      }
    } else if (range.kind() == ValueKind::kMap) {
      const MapValue& map = range.map_value();
      for (const Value& key : map.Keys()) {
        if (!Spend(frame)) return Value::Error(kBudgetExceeded);
        locals[var1_slot_] = key;
        if (var2_slot_ >= 0) locals[var2_slot_] = *map.Find(key);
        if (!Continue(frame)) break;
        locals[accu_slot_] = step_->Evaluate(frame);
      }
    } else {
      return Value::Error(absl::StrCat("got '", range.TypeName(), "', expected iterable type"));
    }
    return result_->Evaluate(frame);
  }

 private:
  bool Continue(Frame& frame) const {
    Value c = cond_->Evaluate(frame);
    return !c.IsFalse();
  }

  // Spends one iteration of the frame's budget; false when it is exhausted.
  static bool Spend(Frame& frame) {
    if (frame.iterations_left == 0) return false;
    --frame.iterations_left;
    return true;
  }

  StepPtr range_, init_, cond_, step_, result_;
  int accu_slot_, var1_slot_, var2_slot_;
};

// A subexpression that occurs more than once and depends only on the declared variables (an
// attribute path such as `device.attributes['gpu.nvidia.com']`), evaluated once per evaluation
// and then reused from the frame. Profile selectors repeat such paths in every term.
class CachedStep final : public Step {
 public:
  CachedStep(StepPtr inner, int slot) : inner_(std::move(inner)), slot_(slot) {}
  Value Evaluate(Frame& frame) const override { return *EvaluateRef(frame); }
  const Value* EvaluateRef(Frame& frame) const override {
    const Value*& slot = frame.cache[slot_];
    if (slot == nullptr) {
      slot = inner_->EvaluateRef(frame);  // valid until the evaluation ends
      if (slot == nullptr) {
        frame.owned.push_front(inner_->Evaluate(frame));
        slot = &frame.owned.front();
      }
    }
    return slot;
  }

  const Step& inner() const { return *inner_; }
  int slot() const { return slot_; }

 private:
  StepPtr inner_;
  int slot_;
};

// An attribute path rooted at a declared variable (`device.attributes['gpu.nvidia.com'].type`)
// as one step: the keys are looked up in a loop, starting from the longest prefix the frame has
// cached, instead of through one step (and one virtual call) per selection, cache and index.
// It reads exactly what the steps it was made from read -- each key with FindStringRef, through
// the same cache and key-lookup slots (CachedStep, MemberValueStep) -- and whenever that cannot
// borrow a value (a value that is not a map, a missing key, a map that does not store its
// values) it leaves the evaluation to those steps, `fallback`, unchanged.
class PathStep final : public Step {
 public:
  struct Component {
    std::string key;
    int cache_slot = -1;   // the CachedStep slot of the path up to and including this key
    int member_slot = -1;  // the MemberValueStep slot of this key, shared with `'key' in ...`
    KeyCache key_cache = {};  // where `key` was found last
  };

  PathStep(StepPtr fallback, size_t variable, std::vector<Component> components)
      : fallback_(std::move(fallback)), variable_(variable), components_(std::move(components)) {
    for (size_t i = components_.size(); i-- > 0;) {
      if (components_[i].cache_slot >= 0) {
        resume_slot_ = components_[i].cache_slot;
        resume_index_ = i + 1;
        break;
      }
    }
    if (resume_index_ + 1 == components_.size()) {
      last_member_slot_ = components_.back().member_slot;
    }
  }

  Value Evaluate(Frame& frame) const override {
    if (const Value* v = EvaluateRef(frame)) return *v;
    return fallback_->Evaluate(frame);
  }

  const Value* EvaluateRef(Frame& frame) const override {
    // The common cases: the path is its cached prefix (once that is in the frame, after its
    // first use in an evaluation), or one key below that prefix or below the variable. Walk()
    // does the rest; kept apart so that these cost no more than a leaf call.
    const Value* base;
    if (resume_slot_ >= 0) {
      base = frame.cache[resume_slot_];
      if (base == nullptr) return Walk(frame);
    } else {
      if (variable_ >= frame.variables.size()) return nullptr;
      base = &frame.variables[variable_];
    }
    const size_t left = components_.size() - resume_index_;
    if (left == 0) return base;
    if (left > 1) return Walk(frame);
    // One key, which has no cache slot of its own (or it would be the resume point).
    if (last_member_slot_ >= 0) {
      const Value* known = frame.cache[last_member_slot_];
      if (known == nullptr) return Walk(frame);  // looked up there, filling the slot
      if (known != NotMember()) return known;
    }
    if (base->kind() != ValueKind::kMap) return nullptr;
    const Component& last = components_.back();
    return base->map_value().FindStringRefCached(last.key, last.key_cache);
  }

  size_t variable() const { return variable_; }
  const std::vector<Component>& components() const { return components_; }

  // The PathStep equivalent of `step` (selections, constant-key indexes, caches and key lookups
  // over a declared variable), or `step` itself when it has another shape.
  static StepPtr Flatten(StepPtr step) {
    std::vector<Component> reversed;
    int pending_cache = -1;  // a CachedStep's slot, for the component below it
    const Step* cur = step.get();
    size_t variable = 0;
    std::vector<Component> prefix;
    while (true) {
      if (const auto* c = dynamic_cast<const CachedStep*>(cur)) {
        if (pending_cache >= 0) return step;
        pending_cache = c->slot();
        cur = &c->inner();
      } else if (const auto* m = dynamic_cast<const MemberValueStep*>(cur)) {
        reversed.push_back({m->key(), pending_cache, m->slot()});
        pending_cache = -1;
        cur = &m->operand();
      } else if (const auto* sel = dynamic_cast<const SelectStep*>(cur)) {
        if (sel->test_only()) return step;
        reversed.push_back({sel->field(), pending_cache, -1});
        pending_cache = -1;
        cur = &sel->operand();
      } else if (const auto* ix = dynamic_cast<const IndexConstStep*>(cur)) {
        reversed.push_back({ix->key(), pending_cache, -1});
        pending_cache = -1;
        cur = &ix->operand();
      } else if (const auto* p = dynamic_cast<const PathStep*>(cur)) {
        if (pending_cache >= 0) return step;
        variable = p->variable();
        prefix = p->components();
        break;
      } else if (const auto* v = dynamic_cast<const VariableStep*>(cur)) {
        if (pending_cache >= 0) return step;
        variable = v->index();
        break;
      } else {
        return step;
      }
    }
    if (reversed.empty()) return step;
    prefix.insert(prefix.end(), std::make_move_iterator(reversed.rbegin()),
                  std::make_move_iterator(reversed.rend()));
    return StepPtr(new PathStep(std::move(step), variable, std::move(prefix)));
  }

 private:
  // EvaluateRef's general case: from the longest cached prefix, or the variable, look up each
  // remaining key, filling the cache and key-lookup slots on the way.
  const Value* Walk(Frame& frame) const {
    const Component* c = components_.data();
    const Component* const end = c + components_.size();
    const Value* cur;
    if (resume_slot_ >= 0 && (cur = frame.cache[resume_slot_]) != nullptr) {
      c += resume_index_;
    } else {
      c += Start(frame, &cur);
      if (cur == nullptr) return nullptr;
    }
    for (; c != end; ++c) {
      if (cur->kind() != ValueKind::kMap) return nullptr;
      const MapValue& map = cur->map_value();
      const Value* next = nullptr;
      if (c->member_slot >= 0) {
        const Value*& known = frame.cache[c->member_slot];
        if (known == nullptr) {
          const Value* found = nullptr;
          if (map.FindMemberRefCached(c->key, c->key_cache, &found)) {
            known = found != nullptr ? found : NotMember();
          }
        }
        if (known != NotMember()) next = known;
      }
      // Not a member (a map may still read it as a default), or a map that cannot tell.
      if (next == nullptr) next = map.FindStringRefCached(c->key, c->key_cache);
      if (next == nullptr) return nullptr;
      if (c->cache_slot >= 0) frame.cache[c->cache_slot] = next;
      cur = next;
    }
    return cur;
  }

  // Where to begin when the deepest cached prefix is not in the frame yet: sets `*cur` to the
  // longest cached prefix, else to the variable (null when unbound), and returns the index of
  // the first component still to look up.
  size_t Start(Frame& frame, const Value** cur) const {
    for (size_t i = resume_index_ > 0 ? resume_index_ - 1 : 0; i > 0; --i) {
      const int slot = components_[i - 1].cache_slot;
      if (slot >= 0 && (*cur = frame.cache[slot]) != nullptr) return i;
    }
    *cur = variable_ < frame.variables.size() ? &frame.variables[variable_] : nullptr;
    return 0;
  }

  StepPtr fallback_;
  size_t variable_;  // in Frame::variables
  std::vector<Component> components_;
  int resume_slot_ = -1;     // the cache slot of the deepest cached prefix, if any
  size_t resume_index_ = 0;  // the number of components that prefix covers
  // The key-lookup slot of the last key, when it is the only one below that prefix (or below
  // the variable, when no prefix is cached).
  int last_member_slot_ = -1;
};

// Builds steps; tracks comprehension scopes to resolve locals to slots.
class Planner {
 public:
  Planner(const CheckedAst* checked, const Environment& env) : checked_(checked), env_(env) {}

  // Finds the attribute paths worth caching: those occurring at least twice in `root`.
  void FindRepeatedPaths(const Expr& root) {
    VisitExpr(root, [&](const Expr& e) {
      if (e.kind == Expr::Kind::kComprehension) {
        bound_names_.insert(e.iter_var);
        bound_names_.insert(e.iter_var2);
        bound_names_.insert(e.accu_var);
      }
    });
    VisitExpr(root, [&](const Expr& e) {
      if (IsCacheablePath(e)) ++path_counts_[DebugString(e)];
    });
    // Keys both checked for presence (`'k' in P`) and read (`P.k`, `P['k']`) on the same path:
    // one lookup per evaluation serves both (MemberInStep, MemberValueStep).
    absl::flat_hash_set<MemberKey> checked, read;
    VisitExpr(root, [&](const Expr& e) {
      if (std::optional<MemberKey> k = PresenceCheck(e)) checked.insert(*std::move(k));
      if (std::optional<MemberKey> k = KeyRead(e)) read.insert(*std::move(k));
    });
    for (const MemberKey& k : checked) {
      if (read.contains(k)) member_slots_.emplace(k, -1);  // numbered when first built
    }
  }

  absl::StatusOr<StepPtr> Build(const Expr& e) {
    if (IsCacheablePath(e)) {
      std::string key = DebugString(e);
      auto count = path_counts_.find(key);
      if (count != path_counts_.end() && count->second >= 2) {
        // Take the slot number now: building the inner steps may add slots (and rehash).
        int slot = cache_slots_.try_emplace(key, num_cache_slots_).first->second;
        if (slot == num_cache_slots_) ++num_cache_slots_;
        auto inner = BuildUncached(e);
        if (!inner.ok()) return inner.status();
        return PathStep::Flatten(StepPtr(new CachedStep(std::move(*inner), slot)));
      }
      auto step = BuildUncached(e);
      if (!step.ok()) return step.status();
      return PathStep::Flatten(*std::move(step));
    }
    return BuildUncached(e);
  }

  int num_cache_slots() const { return num_cache_slots_; }

 private:
  // An attribute path (its DebugString) and a key looked up in its value.
  using MemberKey = std::pair<std::string, std::string>;

  // `'k' in P` with P an attribute path: (P, k).
  std::optional<MemberKey> PresenceCheck(const Expr& e) const {
    if (e.kind != Expr::Kind::kCall || e.name != op::kIn || e.operand || e.args.size() != 2) {
      return std::nullopt;
    }
    const Expr& k = *e.args[0];
    if (k.kind != Expr::Kind::kConstant || k.constant.kind != Constant::Kind::kString ||
        !IsCacheablePath(*e.args[1])) {
      return std::nullopt;
    }
    return MemberKey(DebugString(*e.args[1]), k.constant.string_value);
  }

  // `P.k` or `P['k']` with P an attribute path, as BuildSelect and BuildCall build them with P a
  // step of its own (a chain of plain names `a.b.c` is resolved as a qualified name instead).
  std::optional<MemberKey> KeyRead(const Expr& e) const {
    if (e.kind == Expr::Kind::kSelect && !e.test_only && IsCacheablePath(*e.operand) &&
        !IsNameChain(e)) {
      return MemberKey(DebugString(*e.operand), e.name);
    }
    if (e.kind == Expr::Kind::kCall && e.name == op::kIndex && !e.operand && e.args.size() == 2 &&
        e.args[1]->kind == Expr::Kind::kConstant &&
        e.args[1]->constant.kind == Constant::Kind::kString && IsCacheablePath(*e.args[0])) {
      return MemberKey(DebugString(*e.args[0]), e.args[1]->constant.string_value);
    }
    return std::nullopt;
  }

  // Whether `e` is `a.b.c`: plain field selections down to an identifier.
  static bool IsNameChain(const Expr& e) {
    const Expr* cur = &e;
    while (cur->kind == Expr::Kind::kSelect && !cur->test_only) cur = cur->operand.get();
    return cur->kind == Expr::Kind::kIdent;
  }

  // The cache slot shared by the presence check and the read of `key`, or -1 when `key` is not
  // both checked and read.
  int MemberSlot(const MemberKey& key) {
    auto it = member_slots_.find(key);
    if (it == member_slots_.end()) return -1;
    if (it->second < 0) it->second = num_cache_slots_++;
    return it->second;
  }

  // A field selection or constant index over a chain rooted at an identifier that no
  // comprehension binds: its value is the same wherever it occurs in one evaluation.
  bool IsCacheablePath(const Expr& e) const {
    const Expr* cur = &e;
    bool is_path = false;
    while (true) {
      if (cur->kind == Expr::Kind::kSelect && !cur->test_only) {
        cur = cur->operand.get();
      } else if (cur->kind == Expr::Kind::kCall && cur->name == op::kIndex && !cur->operand &&
                 cur->args.size() == 2 && cur->args[1]->kind == Expr::Kind::kConstant) {
        cur = cur->args[0].get();
      } else {
        break;
      }
      is_path = true;
    }
    return is_path && cur->kind == Expr::Kind::kIdent && !bound_names_.contains(cur->name);
  }

 public:
  absl::StatusOr<StepPtr> BuildUncached(const Expr& e) {
    switch (e.kind) {
      case Expr::Kind::kConstant:
        return StepPtr(new ConstStep(ConstantValue(e.constant)));
      case Expr::Kind::kIdent:
        return BuildName(e.name, {});
      case Expr::Kind::kSelect:
        return BuildSelect(e);
      case Expr::Kind::kCall:
        return BuildCall(e);
      case Expr::Kind::kList: {
        std::vector<StepPtr> elems;
        std::vector<bool> optional(e.args.size(), false);
        for (int32_t i : e.optional_indices) {
          if (i >= 0 && static_cast<size_t>(i) < optional.size()) optional[i] = true;
        }
        for (const ExprPtr& a : e.args) {
          auto s = Build(*a);
          if (!s.ok()) return s.status();
          elems.push_back(std::move(*s));
        }
        return FoldLiteral(std::make_unique<ListStep>(std::move(elems), std::move(optional)));
      }
      case Expr::Kind::kMap: {
        std::vector<MapStep::Entry> entries;
        for (const CreateEntry& ce : e.entries) {
          auto k = Build(*ce.map_key);
          if (!k.ok()) return k.status();
          auto v = Build(*ce.value);
          if (!v.ok()) return v.status();
          entries.push_back({std::move(*k), std::move(*v), ce.optional});
        }
        return FoldLiteral(std::make_unique<MapStep>(std::move(entries)));
      }
      case Expr::Kind::kMessage:
        return absl::UnimplementedError(absl::StrCat(
            "protobuf message construction ('", e.name, "{...}') is not supported"));
      case Expr::Kind::kComprehension:
        return BuildComprehension(e);
    }
    return absl::InternalError("unknown expression kind");
  }

  int num_locals() const { return max_slots_; }

 private:
  int FindLocal(const std::string& name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      if (it->first == name) return it->second;
    }
    return -1;
  }

  int PushLocal(const std::string& name) {
    int slot = static_cast<int>(scopes_.size());
    scopes_.emplace_back(name, slot);
    if (slot + 1 > max_slots_) max_slots_ = slot + 1;
    return slot;
  }

  std::vector<std::string> Candidates(const std::string& name) const {
    return CandidateNames(env_.options().container, name);
  }

  // A name, optionally followed by field selections that may be part of a qualified name.
  absl::StatusOr<StepPtr> BuildName(const std::string& name,
                                    const std::vector<std::string>& fields) {
    int slot = FindLocal(name);
    if (slot >= 0) {
      StepPtr s(new LocalStep(slot));
      for (const std::string& f : fields) s.reset(new SelectStep(std::move(s), f, false));
      return s;
    }
    // Longest qualified prefix that names a declared variable.
    for (size_t take = fields.size() + 1; take-- > 0;) {
      std::string qualified = name;
      for (size_t i = 0; i < take; ++i) absl::StrAppend(&qualified, ".", fields[i]);
      for (const std::string& c : Candidates(qualified)) {
        if (std::optional<size_t> index = env_.FindVariable(c)) {
          StepPtr s(new VariableStep(*index, c));
          for (size_t i = take; i < fields.size(); ++i) {
            s.reset(new SelectStep(std::move(s), fields[i], false));
          }
          return s;
        }
      }
    }
    if (fields.empty()) {
      if (std::optional<Type> t = TypeForName(name)) {
        return StepPtr(new ConstStep(Value::Type(TypeValueName(*t, name))));
      }
    }
    // Not declared: resolved against the activation at run time.
    std::vector<std::pair<std::string, std::vector<std::string>>> candidates;
    for (size_t take = fields.size() + 1; take-- > 0;) {
      std::string qualified = name;
      for (size_t i = 0; i < take; ++i) absl::StrAppend(&qualified, ".", fields[i]);
      std::vector<std::string> rest(fields.begin() + take, fields.end());
      for (const std::string& c : Candidates(qualified)) candidates.emplace_back(c, rest);
    }
    return StepPtr(new DynamicNameStep(std::move(candidates)));
  }

  static std::string TypeValueName(const Type& t, const std::string& written) {
    switch (t.kind()) {
      case Type::Kind::kList: return "list";
      case Type::Kind::kMap: return "map";
      case Type::Kind::kType: return "type";
      case Type::Kind::kOptional: return "optional_type";
      default: return t.ToString();
    }
  }

  absl::StatusOr<StepPtr> BuildSelect(const Expr& e) {
    if (!e.test_only) {
      // Collect a pure identifier chain `a.b.c` for qualified-name resolution.
      std::vector<std::string> fields;
      const Expr* cur = &e;
      while (cur->kind == Expr::Kind::kSelect && !cur->test_only) {
        fields.push_back(cur->name);
        cur = cur->operand.get();
      }
      if (cur->kind == Expr::Kind::kIdent) {
        std::reverse(fields.begin(), fields.end());
        return BuildName(cur->name, fields);
      }
    }
    auto operand = Build(*e.operand);
    if (!operand.ok()) return operand.status();
    auto select = std::make_unique<SelectStep>(std::move(*operand), e.name, e.test_only);
    if (std::optional<MemberKey> key = KeyRead(e)) {
      if (int slot = MemberSlot(*key); slot >= 0) {
        const Step* p = &select->operand();
        return StepPtr(new MemberValueStep(std::move(select), p, e.name, slot));
      }
    }
    return StepPtr(std::move(select));
  }

  absl::StatusOr<StepPtr> BuildCall(const Expr& e) {
    const std::string& fn = e.name;
    std::vector<StepPtr> args;
    auto build_args = [&]() -> absl::Status {
      if (e.operand) {
        auto s = Build(*e.operand);
        if (!s.ok()) return s.status();
        args.push_back(std::move(*s));
      }
      for (const ExprPtr& a : e.args) {
        auto s = Build(*a);
        if (!s.ok()) return s.status();
        args.push_back(std::move(*s));
      }
      return absl::OkStatus();
    };
    if (fn == op::kLogicalAnd || fn == op::kLogicalOr) {
      if (ChainLength(e, fn) > 2) return BuildLogicChain(e, fn);
      if (absl::Status s = build_args(); !s.ok()) return s;
      return StepPtr(new AndOrStep(std::move(args[0]), std::move(args[1]),
                                   fn == op::kLogicalAnd));
    }
    if (fn == op::kConditional) {
      if (absl::Status s = build_args(); !s.ok()) return s;
      return StepPtr(
          new ConditionalStep(std::move(args[0]), std::move(args[1]), std::move(args[2])));
    }
    if (fn == op::kNotStrictlyFalse) {
      if (absl::Status s = build_args(); !s.ok()) return s;
      return StepPtr(new NotStrictlyFalseStep(std::move(args[0])));
    }
    if (!e.operand && e.args.size() == 2) {
      std::optional<CompareConstStep::Op> cmp;
      if (fn == op::kEquals) cmp = CompareConstStep::Op::kEq;
      if (fn == op::kNotEquals) cmp = CompareConstStep::Op::kNe;
      if (fn == op::kLess) cmp = CompareConstStep::Op::kLt;
      if (fn == op::kLessEquals) cmp = CompareConstStep::Op::kLe;
      if (fn == op::kGreater) cmp = CompareConstStep::Op::kGt;
      if (fn == op::kGreaterEquals) cmp = CompareConstStep::Op::kGe;
      if (cmp.has_value()) {
        if (absl::Status s = build_args(); !s.ok()) return s;
        const bool left = args[0]->constant() != nullptr;
        const bool right = args[1]->constant() != nullptr;
        if (left != right) {
          Value c = *args[left ? 0 : 1]->constant();
          auto step = std::make_unique<CompareConstStep>(std::move(args[left ? 1 : 0]),
                                                         std::move(c), *cmp, left, fn);
          if (CompareToConstStep::Applies(*step)) {
            return StepPtr(new CompareToConstStep(std::move(step)));
          }
          return StepPtr(std::move(step));
        }
        // Not a comparison with exactly one constant: the general call below reuses these args.
      }
    }
    if (fn == op::kIn && !e.operand && e.args.size() == 2) {
      if (absl::Status s = build_args(); !s.ok()) return s;
      auto in = std::make_unique<InStep>(std::move(args[0]), std::move(args[1]));
      if (std::optional<MemberKey> key = PresenceCheck(e)) {
        if (int slot = MemberSlot(*key); slot >= 0) {
          return StepPtr(new MemberInStep(std::move(in), slot));
        }
      }
      return StepPtr(std::move(in));
    }

    // Unchecked `ns.fn(x)` where `ns.fn` is a global function (the checker rewrites these).
    std::string name = fn;
    const Expr* receiver = e.operand.get();
    if (receiver != nullptr && checked_ == nullptr) {
      std::vector<std::string> parts;
      const Expr* cur = receiver;
      while (cur->kind == Expr::Kind::kSelect && !cur->test_only) {
        parts.push_back(cur->name);
        cur = cur->operand.get();
      }
      if (cur->kind == Expr::Kind::kIdent && FindLocal(cur->name) < 0) {
        std::string qualified = cur->name;
        for (auto it = parts.rbegin(); it != parts.rend(); ++it) absl::StrAppend(&qualified, ".", *it);
        absl::StrAppend(&qualified, ".", fn);
        if (env_.functions().Find(qualified) != nullptr && !env_.FindVariable(cur->name)) {
          name = qualified;
          receiver = nullptr;
        }
      }
    }
    if (args.empty()) {  // (comparisons above have built theirs already)
      if (receiver != nullptr) {
        auto s = Build(*receiver);
        if (!s.ok()) return s.status();
        args.push_back(std::move(*s));
      }
      for (const ExprPtr& a : e.args) {
        auto s = Build(*a);
        if (!s.ok()) return s.status();
        args.push_back(std::move(*s));
      }
    }

    const std::vector<Overload>* overloads = env_.functions().Find(name);
    std::vector<const Overload*> candidates;
    const Reference* ref = nullptr;
    if (checked_ != nullptr) {
      auto it = checked_->references.find(e.id);
      if (it != checked_->references.end()) ref = &it->second;
    }
    if (overloads != nullptr) {
      for (const Overload& o : *overloads) {
        if (o.receiver_style != (receiver != nullptr) || o.params.size() != args.size()) continue;
        if (!env_.IsAvailable(o)) continue;
        if (!o.runtime_only && ref != nullptr && !ref->overload_ids.empty() &&
            std::find(ref->overload_ids.begin(), ref->overload_ids.end(), o.id) ==
                ref->overload_ids.end()) {
          continue;
        }
        candidates.push_back(&o);
      }
    }
    auto call = std::make_unique<CallStep>(name, std::move(candidates), std::move(args));
    if (name == op::kIndex && receiver == nullptr && IndexConstStep::Applies(*call)) {
      auto index = std::make_unique<IndexConstStep>(std::move(call));
      if (std::optional<MemberKey> key = KeyRead(e)) {
        if (int slot = MemberSlot(*key); slot >= 0) {
          const Step* p = &index->operand();
          return StepPtr(new MemberValueStep(std::move(index), p, std::move(key->second), slot));
        }
      }
      return StepPtr(std::move(index));
    }
    return Fold(std::move(call), e);
  }

  // A list or map literal whose elements are all constants is built once, now (its value is
  // immutable, so every evaluation may share it).
  static StepPtr FoldLiteral(std::unique_ptr<LiteralStep> literal) {
    if (!literal->AllConstant()) return literal;
    Frame frame;
    frame.iterations_left = kFoldIterations;
    return StepPtr(new ConstStep(literal->Evaluate(frame)));
  }

  // Terms of the chain of `fn` (&& or ||) rooted at `e`: calls of `fn` nest into it.
  static bool IsLogicCall(const Expr& e, const std::string& fn) {
    return e.kind == Expr::Kind::kCall && e.name == fn && !e.operand && e.args.size() == 2;
  }
  static int ChainLength(const Expr& e, const std::string& fn) {
    if (!IsLogicCall(e, fn)) return 1;
    return ChainLength(*e.args[0], fn) + ChainLength(*e.args[1], fn);
  }

  absl::StatusOr<StepPtr> BuildLogicChain(const Expr& e, const std::string& fn) {
    std::vector<StepPtr> terms;
    std::vector<LogicChainStep::Node> tree;
    absl::Status status = AddChainNode(e, fn, terms, tree);
    if (!status.ok()) return status;
    return StepPtr(new LogicChainStep(std::move(terms), std::move(tree), fn == op::kLogicalAnd));
  }

  // Appends `e`'s node (and its subtree) to `tree` in pre-order, its leaves to `terms` in order.
  absl::Status AddChainNode(const Expr& e, const std::string& fn, std::vector<StepPtr>& terms,
                            std::vector<LogicChainStep::Node>& tree) {
    const size_t index = tree.size();
    tree.emplace_back();
    if (!IsLogicCall(e, fn)) {
      auto term = Build(e);
      if (!term.ok()) return term.status();
      tree[index].term = static_cast<int>(terms.size());
      terms.push_back(std::move(*term));
      return absl::OkStatus();
    }
    tree[index].lhs = static_cast<int>(tree.size());
    if (absl::Status s = AddChainNode(*e.args[0], fn, terms, tree); !s.ok()) return s;
    tree[index].rhs = static_cast<int>(tree.size());
    return AddChainNode(*e.args[1], fn, terms, tree);
  }

  // Calls whose arguments are all constants are evaluated once, now. Library functions are
  // pure, so this never changes a result (errors fold into constant error values too).
  StepPtr Fold(std::unique_ptr<CallStep> call, const Expr& e) {
    if (!call->HasConstantArgs()) return call;
    Frame frame;
    frame.iterations_left = kFoldIterations;
    return StepPtr(new ConstStep(call->Evaluate(frame)));
  }

  absl::StatusOr<StepPtr> BuildComprehension(const Expr& e) {
    auto range = Build(*e.iter_range);
    if (!range.ok()) return range.status();
    auto init = Build(*e.accu_init);
    if (!init.ok()) return init.status();
    const size_t depth = scopes_.size();
    int accu = PushLocal(e.accu_var);
    int var1 = PushLocal(e.iter_var);
    int var2 = e.iter_var2.empty() ? -1 : PushLocal(e.iter_var2);
    auto cond = Build(*e.loop_condition);
    if (!cond.ok()) return cond.status();
    auto step = Build(*e.loop_step);
    if (!step.ok()) return step.status();
    // The result sees only the accumulator (iteration variables are out of scope).
    scopes_[var1].first = "\x01";
    if (var2 >= 0) scopes_[var2].first = "\x01";
    auto result = Build(*e.result);
    if (!result.ok()) return result.status();
    scopes_.resize(depth);
    return StepPtr(new ComprehensionStep(std::move(*range), std::move(*init), std::move(*cond),
                                         std::move(*step), std::move(*result), accu, var1,
                                         var2));
  }

  const CheckedAst* checked_;
  const Environment& env_;
  std::vector<std::pair<std::string, int>> scopes_;
  int max_slots_ = 0;
  absl::flat_hash_set<std::string> bound_names_;
  absl::flat_hash_map<std::string, int> path_counts_;
  absl::flat_hash_map<std::string, int> cache_slots_;
  absl::flat_hash_map<MemberKey, int> member_slots_;  // -1 until the first step that uses it
  int num_cache_slots_ = 0;  // repeated paths and member lookups share the frame's cache
};

}  // namespace

absl::StatusOr<Plan> BuildPlan(const Expr& root, const CheckedAst* checked,
                               const Environment& env) {
  Planner planner(checked, env);
  planner.FindRepeatedPaths(root);
  auto step = planner.Build(root);
  if (!step.ok()) return step.status();
  Plan plan;
  plan.root = std::move(*step);
  plan.num_locals = planner.num_locals();
  plan.num_cache_slots = planner.num_cache_slots();
  return plan;
}

}  // namespace gpuprofile::cel::internal
