// File: controller/cel/internal/macros.cc
// ExprFactory and the macro expansions. Each expansion follows cel-go (parser/macro.go,
// ext/comprehensions.go, ext/bindings.go, ext/lists.go, the optional library's optMap and
// optFlatMap) node for node, creating the new nodes in the same order cel-go does, so ids grow
// the same way within an expansion.
#include "controller/cel/internal/macros.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "controller/cel/internal/operators.h"

namespace gpuprofile::cel::internal {

const MacroSignature* FindMacro(absl::string_view name, int arg_count, bool receiver_style,
                                const ParserOptions& options) {
  for (const MacroSignature& m : kMacroSignatures) {
    if (m.name != name || m.arg_count != arg_count || m.receiver_style != receiver_style) {
      continue;
    }
    switch (m.group) {
      case MacroGroup::kStandard:
        return &m;
      case MacroGroup::kTwoVar:
        if (options.enable_two_var_macros) return &m;
        break;
      case MacroGroup::kBind:
        if (options.enable_bind_macro) return &m;
        break;
      case MacroGroup::kLists:
        if (options.enable_lists_macros) return &m;
        break;
      case MacroGroup::kOptional:
        if (options.enable_optional_syntax) return &m;
        break;
    }
  }
  return nullptr;
}

ExprPtr ExprFactory::Finish(ExprPtr e) {
  e->id = next_id_++;
  int child = 0;
  auto see = [&](const ExprPtr& c) {
    if (c) child = std::max(child, heights_[static_cast<size_t>(c->id)]);
  };
  see(e->operand);
  for (const ExprPtr& a : e->args) see(a);
  for (const CreateEntry& entry : e->entries) {
    see(entry.map_key);
    see(entry.value);
  }
  see(e->iter_range);
  see(e->accu_init);
  see(e->loop_condition);
  see(e->loop_step);
  see(e->result);
  heights_.push_back(child + 1);
  if (child + 1 > max_height_ && exceeded_offset_ < 0) exceeded_offset_ = e->offset;
  return e;
}

int ExprFactory::Height(const Expr& expr) const { return heights_[static_cast<size_t>(expr.id)]; }

namespace {
ExprPtr NewNode(Expr::Kind kind, int32_t offset) {
  auto e = std::make_unique<Expr>();
  e->kind = kind;
  e->offset = offset;
  return e;
}
}  // namespace

ExprPtr ExprFactory::NewConstant(int32_t offset, Constant constant) {
  ExprPtr e = NewNode(Expr::Kind::kConstant, offset);
  e->constant = std::move(constant);
  return Finish(std::move(e));
}

ExprPtr ExprFactory::NewBool(int32_t offset, bool value) {
  Constant c;
  c.kind = Constant::Kind::kBool;
  c.bool_value = value;
  return NewConstant(offset, std::move(c));
}

ExprPtr ExprFactory::NewInt(int32_t offset, int64_t value) {
  Constant c;
  c.kind = Constant::Kind::kInt;
  c.int_value = value;
  return NewConstant(offset, std::move(c));
}

ExprPtr ExprFactory::NewString(int32_t offset, std::string value) {
  Constant c;
  c.kind = Constant::Kind::kString;
  c.string_value = std::move(value);
  return NewConstant(offset, std::move(c));
}

ExprPtr ExprFactory::NewIdent(int32_t offset, std::string name) {
  ExprPtr e = NewNode(Expr::Kind::kIdent, offset);
  e->name = std::move(name);
  return Finish(std::move(e));
}

ExprPtr ExprFactory::NewSelect(int32_t offset, ExprPtr operand, std::string field, bool test_only) {
  ExprPtr e = NewNode(Expr::Kind::kSelect, offset);
  e->operand = std::move(operand);
  e->name = std::move(field);
  e->test_only = test_only;
  return Finish(std::move(e));
}

ExprPtr ExprFactory::NewCall(int32_t offset, std::string function, std::vector<ExprPtr> args) {
  ExprPtr e = NewNode(Expr::Kind::kCall, offset);
  e->name = std::move(function);
  e->args = std::move(args);
  return Finish(std::move(e));
}

ExprPtr ExprFactory::NewMemberCall(int32_t offset, std::string function, ExprPtr target,
                                   std::vector<ExprPtr> args) {
  ExprPtr e = NewNode(Expr::Kind::kCall, offset);
  e->name = std::move(function);
  e->operand = std::move(target);
  e->args = std::move(args);
  return Finish(std::move(e));
}

ExprPtr ExprFactory::NewList(int32_t offset, std::vector<ExprPtr> elements,
                             std::vector<int32_t> optional_indices) {
  ExprPtr e = NewNode(Expr::Kind::kList, offset);
  e->args = std::move(elements);
  e->optional_indices = std::move(optional_indices);
  return Finish(std::move(e));
}

CreateEntry ExprFactory::NewEntry(int32_t offset) {
  CreateEntry entry;
  entry.id = next_id_++;
  entry.offset = offset;
  heights_.push_back(0);
  return entry;
}

ExprPtr ExprFactory::NewMap(int32_t offset, std::vector<CreateEntry> entries) {
  ExprPtr e = NewNode(Expr::Kind::kMap, offset);
  e->entries = std::move(entries);
  return Finish(std::move(e));
}

ExprPtr ExprFactory::NewMessage(int32_t offset, std::string name,
                                std::vector<CreateEntry> entries) {
  ExprPtr e = NewNode(Expr::Kind::kMessage, offset);
  e->name = std::move(name);
  e->entries = std::move(entries);
  return Finish(std::move(e));
}

ExprPtr ExprFactory::NewComprehension(int32_t offset, Comprehension parts) {
  ExprPtr e = NewNode(Expr::Kind::kComprehension, offset);
  e->iter_var = std::move(parts.iter_var);
  e->iter_var2 = std::move(parts.iter_var2);
  e->accu_var = std::move(parts.accu_var);
  e->iter_range = std::move(parts.iter_range);
  e->accu_init = std::move(parts.accu_init);
  e->loop_condition = std::move(parts.loop_condition);
  e->loop_step = std::move(parts.loop_step);
  e->result = std::move(parts.result);
  return Finish(std::move(e));
}

ExprPtr ExprFactory::Copy(const Expr& expr) {
  // Only used on identifiers and small macro-built trees, whose depth the factory bounds.
  ExprPtr e = NewNode(expr.kind, expr.offset);
  e->constant = expr.constant;
  e->name = expr.name;
  e->test_only = expr.test_only;
  e->optional_indices = expr.optional_indices;
  e->iter_var = expr.iter_var;
  e->iter_var2 = expr.iter_var2;
  e->accu_var = expr.accu_var;
  auto copy = [this](const ExprPtr& c) { return c ? Copy(*c) : nullptr; };
  e->operand = copy(expr.operand);
  for (const ExprPtr& a : expr.args) e->args.push_back(copy(a));
  for (const CreateEntry& src : expr.entries) {
    CreateEntry entry = NewEntry(src.offset);
    entry.map_key = copy(src.map_key);
    entry.field_name = src.field_name;
    entry.value = copy(src.value);
    entry.optional = src.optional;
    e->entries.push_back(std::move(entry));
  }
  e->iter_range = copy(expr.iter_range);
  e->accu_init = copy(expr.accu_init);
  e->loop_condition = copy(expr.loop_condition);
  e->loop_step = copy(expr.loop_step);
  e->result = copy(expr.result);
  return Finish(std::move(e));
}

namespace {

constexpr char kSimpleNameError[] = "argument must be a simple name";
constexpr char kOverwritesAccuError[] = "iteration variable overwrites accumulator variable";

bool IsAccumulatorName(absl::string_view name) {
  return name == op::kAccumulatorVar || name == kLegacyAccumulatorVar;
}

// Checks an iteration variable argument; on failure fills *error.
bool CheckIterVar(const ExprPtr& arg, MacroError* error) {
  if (arg->kind != Expr::Kind::kIdent) {
    *error = {arg->offset, kSimpleNameError};
    return false;
  }
  if (IsAccumulatorName(arg->name)) {
    *error = {arg->offset, kOverwritesAccuError};
    return false;
  }
  return true;
}

// ext.TwoVarComprehensions' extractIterVars: both simple, distinct, not the accumulator.
bool CheckIterVars(const std::vector<ExprPtr>& args, MacroError* error) {
  for (int i = 0; i < 2; ++i) {
    if (args[i]->kind != Expr::Kind::kIdent) {
      *error = {args[i]->offset, kSimpleNameError};
      return false;
    }
  }
  if (args[0]->name == args[1]->name) {
    *error = {args[1]->offset, absl::StrCat("duplicate variable name: ", args[0]->name)};
    return false;
  }
  for (int i = 0; i < 2; ++i) {
    if (IsAccumulatorName(args[i]->name)) {
      *error = {args[i]->offset, kOverwritesAccuError};
      return false;
    }
  }
  return true;
}

class Expander {
 public:
  Expander(ExprFactory& f, int32_t offset) : f_(f), offset_(offset) {}

  ExprPtr Accu() { return f_.NewIdent(offset_, op::kAccumulatorVar); }
  ExprPtr Bool(bool v) { return f_.NewBool(offset_, v); }
  ExprPtr Int(int64_t v) { return f_.NewInt(offset_, v); }
  ExprPtr Call(const char* fn, std::vector<ExprPtr> args) {
    return f_.NewCall(offset_, fn, std::move(args));
  }

  // `accu + [elem]`, optionally under `filter ? ... : accu`.
  ExprPtr AppendStep(ExprPtr elem, ExprPtr filter) {
    ExprPtr accu = Accu();
    ExprPtr list = f_.NewList(offset_, MakeArgs(std::move(elem)));
    ExprPtr step = Call(op::kAdd, MakeArgs(std::move(accu), std::move(list)));
    return Filtered(std::move(step), std::move(filter));
  }

  ExprPtr Filtered(ExprPtr step, ExprPtr filter) {
    if (!filter) return step;
    return Call(op::kConditional, MakeArgs(std::move(filter), std::move(step), Accu()));
  }

  enum class Quantifier { kAll, kExists, kExistsOne };

  ExprPtr Quantify(Quantifier q, ExprPtr target, std::string v1, std::string v2, ExprPtr pred) {
    ExprFactory::Comprehension c;
    switch (q) {
      case Quantifier::kAll:
        c.accu_init = Bool(true);
        c.loop_condition = Call(op::kNotStrictlyFalse, MakeArgs(Accu()));
        c.loop_step = Call(op::kLogicalAnd, MakeArgs(Accu(), std::move(pred)));
        c.result = Accu();
        break;
      case Quantifier::kExists: {
        c.accu_init = Bool(false);
        ExprPtr not_accu = Call(op::kLogicalNot, MakeArgs(Accu()));
        c.loop_condition = Call(op::kNotStrictlyFalse, MakeArgs(std::move(not_accu)));
        c.loop_step = Call(op::kLogicalOr, MakeArgs(Accu(), std::move(pred)));
        c.result = Accu();
        break;
      }
      case Quantifier::kExistsOne: {
        c.accu_init = Int(0);
        c.loop_condition = Bool(true);
        ExprPtr accu = Accu();
        ExprPtr plus_one = Call(op::kAdd, MakeArgs(std::move(accu), Int(1)));
        c.loop_step =
            Call(op::kConditional, MakeArgs(std::move(pred), std::move(plus_one), Accu()));
        ExprPtr accu2 = Accu();
        c.result = Call(op::kEquals, MakeArgs(std::move(accu2), Int(1)));
        break;
      }
    }
    return Comprehension(std::move(target), std::move(v1), std::move(v2), std::move(c));
  }

  ExprPtr Comprehension(ExprPtr target, std::string v1, std::string v2,
                        ExprFactory::Comprehension c) {
    c.iter_range = std::move(target);
    c.iter_var = std::move(v1);
    c.iter_var2 = std::move(v2);
    c.accu_var = op::kAccumulatorVar;
    return f_.NewComprehension(offset_, std::move(c));
  }

  // `target.map(v, [filter,] transform)`; args[0] is the (checked) variable.
  ExprPtr Map(ExprPtr target, std::vector<ExprPtr>& args) {
    ExprPtr filter = args.size() == 3 ? std::move(args[1]) : nullptr;
    ExprPtr transform = std::move(args.back());
    ExprFactory::Comprehension c;
    c.accu_init = f_.NewList(offset_);
    c.loop_condition = Bool(true);
    c.loop_step = AppendStep(std::move(transform), std::move(filter));
    c.result = Accu();
    return Comprehension(std::move(target), args[0]->name, "", std::move(c));
  }

  ExprPtr Filter(ExprPtr target, std::vector<ExprPtr>& args) {
    std::string var = args[0]->name;
    ExprFactory::Comprehension c;
    c.accu_init = f_.NewList(offset_);
    c.loop_condition = Bool(true);
    // cel-go reuses the variable's own ident node as the list element.
    c.loop_step = AppendStep(std::move(args[0]), std::move(args[1]));
    c.result = Accu();
    return Comprehension(std::move(target), std::move(var), "", std::move(c));
  }

  enum class Transform { kList, kMap, kMapEntry };

  ExprPtr TransformTwoVar(Transform t, ExprPtr target, std::vector<ExprPtr>& args) {
    std::string v1 = args[0]->name;
    std::string v2 = args[1]->name;
    ExprPtr filter = args.size() == 4 ? std::move(args[2]) : nullptr;
    ExprPtr transform = std::move(args.back());
    ExprFactory::Comprehension c;
    ExprPtr step;
    if (t == Transform::kList) {
      c.accu_init = f_.NewList(offset_);
      c.loop_condition = Bool(true);
      step = AppendStep(std::move(transform), std::move(filter));
    } else {
      c.accu_init = f_.NewMap(offset_);
      c.loop_condition = Bool(true);
      std::vector<ExprPtr> insert_args = MakeArgs(Accu());
      if (t == Transform::kMap) insert_args.push_back(f_.NewIdent(offset_, v1));
      insert_args.push_back(std::move(transform));
      step = Filtered(Call(kMapInsertFunction, std::move(insert_args)), std::move(filter));
    }
    c.loop_step = std::move(step);
    c.result = Accu();
    return Comprehension(std::move(target), std::move(v1), std::move(v2), std::move(c));
  }

  ExprPtr Bind(std::vector<ExprPtr>& args) {
    std::string var = args[0]->name;
    ExprFactory::Comprehension c;
    c.iter_range = f_.NewList(offset_);
    c.iter_var = kUnusedIterVar;
    c.accu_var = var;
    c.accu_init = std::move(args[1]);
    c.loop_condition = Bool(false);
    c.loop_step = f_.NewIdent(offset_, var);
    c.result = std::move(args[2]);
    return f_.NewComprehension(offset_, std::move(c));
  }

  // ext.Lists' sortBy: cel.bind(@__sortBy_input__, target,
  //   @__sortBy_input__.@sortByAssociatedKeys(@__sortBy_input__.map(x, key)))
  ExprPtr SortBy(ExprPtr target, std::vector<ExprPtr>& args) {
    ExprPtr input = f_.NewIdent(offset_, kSortByInputVar);
    ExprPtr keys = Map(f_.Copy(*input), args);
    ExprPtr call = f_.NewMemberCall(offset_, kSortByAssociatedKeysFunction, f_.Copy(*input),
                                    MakeArgs(std::move(keys)));
    ExprFactory::Comprehension c;
    c.iter_range = f_.NewList(offset_);
    c.iter_var = kUnusedIterVar;
    c.accu_var = kSortByInputVar;
    c.accu_init = std::move(target);
    c.loop_condition = Bool(false);
    c.loop_step = std::move(input);
    c.result = std::move(call);
    return f_.NewComprehension(offset_, std::move(c));
  }

  // cel.OptionalTypes' optMap (`wrap`) and optFlatMap:
  //   target.hasValue() ? [optional.of(]bind(var, target.value(), expr)[)] : optional.none()
  // where the bind is the cel.bind comprehension. `target` is used twice, so the value() call
  // gets a copy of it.
  ExprPtr OptionalMap(ExprPtr target, std::vector<ExprPtr>& args, bool wrap) {
    std::string var = args[0]->name;
    ExprPtr target_copy = f_.Copy(*target);
    ExprPtr has_value =
        f_.NewMemberCall(offset_, kOptionalHasValueFunction, std::move(target), {});
    ExprFactory::Comprehension c;
    c.iter_range = f_.NewList(offset_);
    c.iter_var = kUnusedIterVar;
    c.accu_var = var;
    c.accu_init = f_.NewMemberCall(offset_, kOptionalValueFunction, std::move(target_copy), {});
    c.loop_condition = Bool(false);
    c.loop_step = f_.NewIdent(offset_, var);
    c.result = std::move(args[1]);
    ExprPtr mapped = f_.NewComprehension(offset_, std::move(c));
    if (wrap) mapped = Call(kOptionalOfFunction, MakeArgs(std::move(mapped)));
    ExprPtr none = Call(kOptionalNoneFunction, {});
    return Call(op::kConditional,
                MakeArgs(std::move(has_value), std::move(mapped), std::move(none)));
  }

 private:
  ExprFactory& f_;
  int32_t offset_;
};

}  // namespace

MacroOutcome ExpandMacro(ExprFactory& factory, const ParserOptions& options, int32_t offset,
                         absl::string_view function, ExprPtr& target, std::vector<ExprPtr>& args,
                         ExprPtr* expansion, MacroError* error) {
  const int argc = static_cast<int>(args.size());
  const MacroSignature* macro = FindMacro(function, argc, target != nullptr, options);
  if (macro == nullptr) return MacroOutcome::kNotMacro;
  const absl::string_view name = macro->name;
  Expander x(factory, offset);

  // Validate everything before consuming target or args, so that on error the caller still
  // owns them intact.
  if (name == "has") {
    const ExprPtr& arg = args[0];
    if (arg->kind != Expr::Kind::kSelect || arg->test_only) {
      *error = {arg->offset, "invalid argument to has() macro"};
      return MacroOutcome::kError;
    }
    *expansion = factory.NewSelect(offset, std::move(arg->operand), arg->name, true);
    args.clear();
    return MacroOutcome::kExpanded;
  }
  if (name == "bind") {
    if (target->kind != Expr::Kind::kIdent || target->name != "cel") {
      return MacroOutcome::kNotMacro;
    }
    if (args[0]->kind != Expr::Kind::kIdent) {
      *error = {args[0]->offset, "cel.bind() variable names must be simple identifiers"};
      return MacroOutcome::kError;
    }
    *expansion = x.Bind(args);
    target.reset();
    args.clear();
    return MacroOutcome::kExpanded;
  }
  if (macro->group == MacroGroup::kOptional) {
    if (args[0]->kind != Expr::Kind::kIdent) {
      *error = {args[0]->offset,
                absl::StrCat(name, "() variable name must be a simple identifier")};
      return MacroOutcome::kError;
    }
    *expansion = x.OptionalMap(std::move(target), args, name == "optMap");
    args.clear();
    return MacroOutcome::kExpanded;
  }
  if (name == "sortBy") {
    switch (target->kind) {
      case Expr::Kind::kList:
      case Expr::Kind::kSelect:
      case Expr::Kind::kIdent:
      case Expr::Kind::kComprehension:
      case Expr::Kind::kCall:
        break;
      default:
        *error = {target->offset,
                  "sortBy can only be applied to a list, identifier, comprehension, call or "
                  "select expression"};
        return MacroOutcome::kError;
    }
    if (!CheckIterVar(args[0], error)) return MacroOutcome::kError;
    *expansion = x.SortBy(std::move(target), args);
    args.clear();
    return MacroOutcome::kExpanded;
  }

  if (macro->group == MacroGroup::kTwoVar) {
    if (!CheckIterVars(args, error)) return MacroOutcome::kError;
    std::string v1 = args[0]->name;
    std::string v2 = args[1]->name;
    if (name == "all" || name == "exists" || name == "existsOne" || name == "exists_one") {
      const auto q = name == "all"      ? Expander::Quantifier::kAll
                     : name == "exists" ? Expander::Quantifier::kExists
                                        : Expander::Quantifier::kExistsOne;
      *expansion =
          x.Quantify(q, std::move(target), std::move(v1), std::move(v2), std::move(args[2]));
    } else {
      const auto t = name == "transformList"  ? Expander::Transform::kList
                     : name == "transformMap" ? Expander::Transform::kMap
                                              : Expander::Transform::kMapEntry;
      *expansion = x.TransformTwoVar(t, std::move(target), args);
    }
    args.clear();
    return MacroOutcome::kExpanded;
  }

  // Standard one-variable comprehensions.
  if (!CheckIterVar(args[0], error)) return MacroOutcome::kError;
  if (name == "map") {
    *expansion = x.Map(std::move(target), args);
  } else if (name == "filter") {
    *expansion = x.Filter(std::move(target), args);
  } else {
    const auto q = name == "all"      ? Expander::Quantifier::kAll
                   : name == "exists" ? Expander::Quantifier::kExists
                                      : Expander::Quantifier::kExistsOne;
    *expansion = x.Quantify(q, std::move(target), args[0]->name, "", std::move(args[1]));
  }
  args.clear();
  return MacroOutcome::kExpanded;
}

}  // namespace gpuprofile::cel::internal
