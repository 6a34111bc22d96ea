// File: controller/cel/internal/checker.cc
#include "controller/cel/internal/checker.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "controller/cel/internal/container.h"
#include "controller/cel/internal/operators.h"
#include "controller/cel/internal/type_names.h"

namespace gpuprofile::cel::internal {
namespace {

using TypeBindings = std::vector<std::pair<std::string, Type>>;

// The optional library's overload of `_?._` (standard_optional.cc).
constexpr char kSelectOptionalFieldOverload[] = "select_optional_field";

const Type* FindBinding(const TypeBindings& b, const std::string& name) {
  for (const auto& [n, t] : b) {
    if (n == name) return &t;
  }
  return nullptr;
}

Type Substitute(const Type& t, const TypeBindings& b) {
  switch (t.kind()) {
    case Type::Kind::kTypeParam: {
      const Type* bound = FindBinding(b, t.name());
      return bound ? *bound : Type::Dyn();
    }
    case Type::Kind::kList: return Type::List(Substitute(t.params()[0], b));
    case Type::Kind::kMap:
      return Type::Map(Substitute(t.params()[0], b), Substitute(t.params()[1], b));
    case Type::Kind::kOptional: return Type::Optional(Substitute(t.params()[0], b));
    case Type::Kind::kType:
      return t.params().empty() ? t : Type::TypeOf(Substitute(t.params()[0], b));
    default: return t;
  }
}

// Whether a value of type `arg` may be passed where `param` is declared, binding type params.
bool IsAssignable(const Type& param, const Type& arg, TypeBindings& b) {
  if (param.kind() == Type::Kind::kTypeParam) {
    const Type* bound = FindBinding(b, param.name());
    if (bound == nullptr) {
      b.emplace_back(param.name(), arg);
      return true;
    }
    if (bound->is_dyn()) return true;
    if (arg.is_dyn()) return true;
    Type copy = *bound;
    if (IsAssignable(copy, arg, b)) return true;
    // A param bound to a type that is more specific than a later argument widens to dyn
    // (e.g. `[1, 'a']`), as the CEL checker's "most general type" does for lists.
    return false;
  }
  if (param.is_dyn() || arg.is_dyn()) return true;
  if (arg.kind() == Type::Kind::kError || param.kind() == Type::Kind::kError) return true;
  if (param.kind() != arg.kind()) return false;
  switch (param.kind()) {
    case Type::Kind::kList:
    case Type::Kind::kOptional:
      return IsAssignable(param.params()[0], arg.params()[0], b);
    case Type::Kind::kMap:
      return IsAssignable(param.params()[0], arg.params()[0], b) &&
             IsAssignable(param.params()[1], arg.params()[1], b);
    case Type::Kind::kType:
      return true;
    case Type::Kind::kOpaque:
      return param.name() == arg.name();
    default:
      return true;
  }
}

// The type both branches/elements fit in: equal types stay, anything else becomes dyn.
Type Join(const Type& a, const Type& b) {
  if (a == b) return a;
  if (a.kind() == Type::Kind::kError) return b;
  if (b.kind() == Type::Kind::kError) return a;
  if (a.kind() == b.kind()) {
    switch (a.kind()) {
      case Type::Kind::kList: return Type::List(Join(a.params()[0], b.params()[0]));
      case Type::Kind::kOptional: return Type::Optional(Join(a.params()[0], b.params()[0]));
      case Type::Kind::kMap:
        return Type::Map(Join(a.params()[0], b.params()[0]), Join(a.params()[1], b.params()[1]));
      default: break;
    }
  }
  return Type::Dyn();
}

bool IsBoolish(const Type& t) {
  return t.kind() == Type::Kind::kBool || t.is_dyn() || t.kind() == Type::Kind::kError;
}

// A select chain of plain identifiers (`a.b.c`), as text; nullopt otherwise.
std::optional<std::string> QualifiedName(const Expr& e) {
  if (e.kind == Expr::Kind::kIdent) return e.name;
  if (e.kind == Expr::Kind::kSelect && !e.test_only && e.operand) {
    std::optional<std::string> base = QualifiedName(*e.operand);
    if (base) return absl::StrCat(*base, ".", e.name);
  }
  return std::nullopt;
}

std::string RootName(const std::string& qualified) {
  return qualified.substr(0, qualified.find('.'));
}

class Checker {
 public:
  Checker(const Environment& env, const Source& source) : env_(env), source_(source) {}

  Type CheckExpr(ExprPtr& slot) {
    Expr& e = *slot;
    Type t = Dispatch(slot);
    types_[slot->id] = t;
    (void)e;
    return t;
  }

  absl::flat_hash_map<int64_t, Type> TakeTypes() { return std::move(types_); }
  absl::flat_hash_map<int64_t, Reference> TakeReferences() { return std::move(refs_); }
  const std::vector<std::string>& errors() const { return errors_; }
  bool unimplemented() const { return unimplemented_; }

 private:
  Type Dispatch(ExprPtr& slot) {
    Expr& e = *slot;
    switch (e.kind) {
      case Expr::Kind::kConstant: return ConstantType(e.constant);
      case Expr::Kind::kIdent: return CheckIdent(e);
      case Expr::Kind::kSelect: return CheckSelect(slot);
      case Expr::Kind::kCall: return CheckCall(e);
      case Expr::Kind::kList: return CheckList(e);
      case Expr::Kind::kMap: return CheckMap(e);
      case Expr::Kind::kMessage:
        unimplemented_ = true;
        Error(e, absl::StrCat("protobuf message construction ('", e.name,
                              "{...}') is not supported by this engine"));
        return Type::Error();
      case Expr::Kind::kComprehension: return CheckComprehension(e);
    }
    return Type::Error();
  }

  static Type ConstantType(const Constant& c) {
    switch (c.kind) {
      case Constant::Kind::kNull: return Type::Null();
      case Constant::Kind::kBool: return Type::Bool();
      case Constant::Kind::kInt: return Type::Int();
      case Constant::Kind::kUint: return Type::Uint();
      case Constant::Kind::kDouble: return Type::Double();
      case Constant::Kind::kString: return Type::String();
      case Constant::Kind::kBytes: return Type::Bytes();
    }
    return Type::Dyn();
  }

  void Error(const Expr& e, absl::string_view message) {
    errors_.push_back(source_.FormatError(e.offset, message));
  }

  const Type* FindLocal(const std::string& name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      if (it->first == name) return &it->second;
    }
    return nullptr;
  }

  // Candidate fully qualified names for `name` within the container, most specific first.
  std::vector<std::string> Candidates(const std::string& name) const {
    return CandidateNames(env_.options().container, name);
  }

  std::optional<std::string> ResolveVariable(const std::string& name) const {
    for (const std::string& c : Candidates(name)) {
      if (env_.FindVariable(c)) return c;
    }
    return std::nullopt;
  }

  Type CheckIdent(Expr& e) {
    if (const Type* local = FindLocal(e.name)) return *local;
    if (std::optional<std::string> var = ResolveVariable(e.name)) {
      refs_[e.id].variable = *var;
      return env_.options().variables[*env_.FindVariable(*var)].type;
    }
    if (std::optional<Type> denoted = TypeForName(e.name)) return Type::TypeOf(*denoted);
    Error(e, absl::StrCat("undeclared reference to '", e.name, "' (in container '",
                          env_.options().container, "')"));
    return Type::Error();
  }

  Type CheckSelect(ExprPtr& slot) {
    Expr& e = *slot;
    // `a.b.c` may name a declared variable (qualified identifier) unless `a` is a local.
    if (!e.test_only) {
      std::optional<std::string> qn = QualifiedName(e);
      if (qn && FindLocal(RootName(*qn)) == nullptr) {
        if (std::optional<std::string> var = ResolveVariable(*qn)) {
          auto ident = std::make_unique<Expr>();
          ident->id = e.id;
          ident->offset = e.offset;
          ident->kind = Expr::Kind::kIdent;
          ident->name = *qn;
          slot = std::move(ident);
          refs_[slot->id].variable = *var;
          return env_.options().variables[*env_.FindVariable(*var)].type;
        }
      }
    }
    Type operand = CheckExpr(e.operand);
    Type result = FieldOf(e, e.name, operand);
    return e.test_only ? Type::Bool() : result;
  }

  // The type of `operand.field` (reported at `e`). As in cel-go, selecting through an
  // optional(T) selects on T and stays optional, and so does an optional selection `.?field`:
  // both give optional(type of the field).
  Type FieldOf(const Expr& e, const std::string& field, const Type& operand,
               bool optional = false) {
    const bool through_optional = operand.kind() == Type::Kind::kOptional;
    Type result = FieldOfValue(e, field, through_optional ? operand.params()[0] : operand);
    if (result.kind() == Type::Kind::kError || !(optional || through_optional)) return result;
    return Type::Optional(std::move(result));
  }

  Type FieldOfValue(const Expr& e, const std::string& field, const Type& operand) {
    switch (operand.kind()) {
      case Type::Kind::kDyn:
      case Type::Kind::kAny:
      case Type::Kind::kError:
        return Type::Dyn();
      case Type::Kind::kMap:
        if (!operand.params()[0].is_dyn() && operand.params()[0].kind() != Type::Kind::kString) {
          break;
        }
        return operand.params()[1];
      case Type::Kind::kOpaque:
        if (env_.IsMessageType(operand)) {
          if (std::optional<Type> f = env_.FieldType(operand, field)) return *f;
          const std::string why = env_.FieldUnavailableReason(operand, field);
          Error(e, absl::StrCat("undefined field '", field, "'",
                                why.empty() ? "" : absl::StrCat(" (", why, ")")));
          return Type::Error();
        }
        break;
      default:
        break;
    }
    Error(e, absl::StrCat("type '", operand.ToString(),
                          "' does not support field selection"));
    return Type::Error();
  }

  Type CheckList(Expr& e) {
    std::optional<Type> elem;
    for (size_t i = 0; i < e.args.size(); ++i) {
      Type t = CheckExpr(e.args[i]);
      bool optional_elem = false;
      for (int32_t oi : e.optional_indices) optional_elem |= (oi == static_cast<int32_t>(i));
      if (optional_elem) {
        if (t.kind() == Type::Kind::kOptional) {
          t = t.params()[0];
        } else if (!t.is_dyn() && t.kind() != Type::Kind::kError) {
          Error(*e.args[i], absl::StrCat("expected type 'optional_type' but found '",
                                         t.ToString(), "'"));
        }
      }
      elem = elem ? Join(*elem, t) : t;
    }
    return Type::List(elem ? *elem : Type::Dyn());
  }

  Type CheckMap(Expr& e) {
    std::optional<Type> key, value;
    for (CreateEntry& entry : e.entries) {
      Type k = CheckExpr(entry.map_key);
      switch (k.kind()) {
        case Type::Kind::kBool: case Type::Kind::kInt: case Type::Kind::kUint:
        case Type::Kind::kString: case Type::Kind::kDyn: case Type::Kind::kAny:
        case Type::Kind::kError:
          break;
        default:
          Error(*entry.map_key, absl::StrCat("unsupported map key type: ", k.ToString()));
      }
      Type v = CheckExpr(entry.value);
      if (entry.optional) {
        if (v.kind() == Type::Kind::kOptional) {
          v = v.params()[0];
        } else if (!v.is_dyn() && v.kind() != Type::Kind::kError) {
          Error(*entry.value, absl::StrCat("expected type 'optional_type' but found '",
                                           v.ToString(), "'"));
        }
      }
      key = key ? Join(*key, k) : k;
      value = value ? Join(*value, v) : v;
    }
    return Type::Map(key ? *key : Type::Dyn(), value ? *value : Type::Dyn());
  }

  Type CheckComprehension(Expr& e) {
    Type range = CheckExpr(e.iter_range);
    Type var1 = Type::Dyn(), var2 = Type::Dyn();
    const bool two = !e.iter_var2.empty();
    switch (range.kind()) {
      case Type::Kind::kList:
        if (two) {
          var1 = Type::Int();
          var2 = range.params()[0];
        } else {
          var1 = range.params()[0];
        }
        break;
      case Type::Kind::kMap:
        var1 = range.params()[0];
        var2 = range.params()[1];
        break;
      case Type::Kind::kDyn:
      case Type::Kind::kError:
        break;
      default:
        Error(*e.iter_range, absl::StrCat("expression of type '", range.ToString(),
                                          "' cannot be the range of a comprehension (must be "
                                          "list, map, or dynamic)"));
    }
    Type accu = CheckExpr(e.accu_init);
    scopes_.emplace_back(e.accu_var, accu);
    scopes_.emplace_back(e.iter_var, var1);
    if (two) scopes_.emplace_back(e.iter_var2, var2);
    Type cond = CheckExpr(e.loop_condition);
    if (!IsBoolish(cond)) {
      Error(*e.loop_condition, absl::StrCat("expected type 'bool' but found '", cond.ToString(),
                                            "'"));
    }
    Type step = CheckExpr(e.loop_step);
    scopes_.pop_back();
    if (two) scopes_.pop_back();
    // An empty literal as the accumulator (map(), filter()) takes the step's element type.
    Type accu_final = Join(accu, step);
    if (accu.kind() == step.kind() &&
        (accu.kind() == Type::Kind::kList || accu.kind() == Type::Kind::kMap) &&
        IsEmptyLiteral(*e.accu_init)) {
      accu_final = step;
    }
    scopes_.back().second = accu_final;
    Type result = CheckExpr(e.result);
    scopes_.pop_back();
    return result;
  }

  static bool IsEmptyLiteral(const Expr& e) {
    return (e.kind == Expr::Kind::kList && e.args.empty()) ||
           (e.kind == Expr::Kind::kMap && e.entries.empty());
  }

  Type CheckCall(Expr& e) {
    const std::string& fn = e.name;
    // Special forms the evaluator implements itself.
    if (fn == op::kLogicalAnd || fn == op::kLogicalOr) {
      for (ExprPtr& a : e.args) {
        Type t = CheckExpr(a);
        if (!IsBoolish(t)) return NoMatchingOverload(e, {Type::Bool(), t});
      }
      return Type::Bool();
    }
    if (fn == op::kNotStrictlyFalse) {
      CheckExpr(e.args[0]);
      return Type::Bool();
    }
    if (fn == op::kOptSelect && e.operand == nullptr && e.args.size() == 2 &&
        e.args[1]->kind == Expr::Kind::kConstant &&
        e.args[1]->constant.kind == Constant::Kind::kString && OptionalSelectAvailable()) {
      return CheckOptionalSelect(e);
    }
    if (fn == op::kConditional) {
      Type c = CheckExpr(e.args[0]);
      Type a = CheckExpr(e.args[1]);
      Type b = CheckExpr(e.args[2]);
      if (!IsBoolish(c)) return NoMatchingOverload(e, {c, a, b});
      TypeBindings bindings;
      if (!IsAssignable(a, b, bindings) && !IsAssignable(b, a, bindings)) {
        return NoMatchingOverload(e, {c, a, b});
      }
      return Join(a, b);
    }

    // `ns.fn(args)` where `ns.fn` is a declared global function (sets.contains, strings.quote,
    // optional.of, format.dns1123Label, cel.@mapInsert, ...).
    std::string name = fn;
    bool receiver = e.operand != nullptr;
    if (receiver) {
      std::optional<std::string> qn = QualifiedName(*e.operand);
      if (qn && FindLocal(RootName(*qn)) == nullptr && !ResolveVariable(*qn) &&
          !ResolveVariable(RootName(*qn))) {
        std::string qualified = absl::StrCat(*qn, ".", fn);
        if (env_.functions().Find(qualified) != nullptr) {
          name = qualified;
          receiver = false;
          e.name = qualified;
          e.operand.reset();
        }
      }
    }

    std::vector<Type> arg_types;
    if (receiver) arg_types.push_back(CheckExpr(e.operand));
    for (ExprPtr& a : e.args) arg_types.push_back(CheckExpr(a));
    for (const Type& t : arg_types) {
      if (t.kind() == Type::Kind::kError) return Type::Error();
    }

    const std::vector<Overload>* overloads = env_.functions().Find(name);
    if (overloads == nullptr) {
      Error(e, absl::StrCat("undeclared reference to '", name, "' (in container '",
                            env_.options().container, "')"));
      return Type::Error();
    }
    std::vector<const Overload*> matches;
    const Overload* gated = nullptr;
    std::optional<Type> result;
    for (const Overload& o : *overloads) {
      if (o.runtime_only) continue;
      if (o.receiver_style != receiver || o.params.size() != arg_types.size()) continue;
      TypeBindings bindings;
      bool ok = true;
      for (size_t i = 0; i < arg_types.size() && ok; ++i) {
        ok = IsAssignable(o.params[i], arg_types[i], bindings);
      }
      if (!ok) continue;
      if (!env_.IsAvailable(o)) {
        if (gated == nullptr) gated = &o;
        continue;
      }
      matches.push_back(&o);
      Type r = Substitute(o.result, bindings);
      result = result ? (*result == r ? *result : Type::Dyn()) : r;
    }
    if (matches.empty()) {
      if (gated != nullptr) {
        Error(e, env_.UnavailableReason(name, *gated));
        return Type::Error();
      }
      return NoMatchingOverload(e, arg_types, name);
    }
    Reference& ref = refs_[e.id];
    for (const Overload* o : matches) ref.overload_ids.push_back(o->id);
    return *result;
  }

  // Whether the environment offers the optional library's `_?._`; when it does not, the call
  // goes through overload resolution, which reports why.
  bool OptionalSelectAvailable() const {
    const std::vector<Overload>* overloads = env_.functions().Find(op::kOptSelect);
    if (overloads == nullptr) return false;
    for (const Overload& o : *overloads) {
      if (o.id == kSelectOptionalFieldOverload && env_.IsAvailable(o)) return true;
    }
    return false;
  }

  // `operand.?field` (the parser's `_?._`(operand, 'field')): optional(type of the field), as
  // cel-go's checker types it, rather than the overload's optional(dyn).
  Type CheckOptionalSelect(Expr& e) {
    Type operand = CheckExpr(e.args[0]);
    CheckExpr(e.args[1]);
    if (operand.kind() == Type::Kind::kError) return operand;
    Type result = FieldOf(e, e.args[1]->constant.string_value, operand, /*optional=*/true);
    if (result.kind() == Type::Kind::kError) return result;
    refs_[e.id].overload_ids.push_back(kSelectOptionalFieldOverload);
    return result;
  }

  Type NoMatchingOverload(const Expr& e, const std::vector<Type>& args,
                          absl::string_view name = "") {
    std::vector<std::string> names;
    for (const Type& t : args) names.push_back(t.ToString());
    Error(e, absl::StrCat("found no matching overload for '", name.empty() ? e.name : name,
                          "' applied to '(", absl::StrJoin(names, ", "), ")'"));
    return Type::Error();
  }

  const Environment& env_;
  const Source& source_;
  std::vector<std::pair<std::string, Type>> scopes_;
  absl::flat_hash_map<int64_t, Type> types_;
  absl::flat_hash_map<int64_t, Reference> refs_;
  std::vector<std::string> errors_;
  bool unimplemented_ = false;
};

}  // namespace

const Type& CheckedAst::TypeOf(const Expr& e) const {
  static const Type* const kDyn = new Type(Type::Dyn());
  auto it = types.find(e.id);
  return it == types.end() ? *kDyn : it->second;
}

absl::StatusOr<CheckedAst> Check(Ast ast, const Environment& env, const CheckOptions& options) {
  Checker checker(env, *ast.source);
  Type result = checker.CheckExpr(ast.root);
  std::vector<std::string> errors = checker.errors();
  if (errors.empty() && options.require_bool_result && !IsBoolish(result)) {
    errors.push_back(absl::StrCat("must evaluate to bool or the unknown type, not ",
                                  result.ToString()));
  }
  if (!errors.empty()) {
    std::string message = absl::StrJoin(errors, "\n");
    if (checker.unimplemented()) return absl::UnimplementedError(message);
    return absl::InvalidArgumentError(message);
  }
  CheckedAst checked;
  checked.ast = std::move(ast);
  checked.types = checker.TakeTypes();
  checked.references = checker.TakeReferences();
  return checked;
}

}  // namespace gpuprofile::cel::internal
