// File: controller/cel/internal/operators.h
// Reserved function names of CEL operators and internal helpers, as in the CEL specification
// (and cel-go), so that ASTs and error messages read the way CEL users know them.
#pragma once

namespace gpuprofile::cel::internal::op {

inline constexpr char kConditional[] = "_?_:_";
inline constexpr char kLogicalAnd[] = "_&&_";
inline constexpr char kLogicalOr[] = "_||_";
inline constexpr char kLogicalNot[] = "!_";
inline constexpr char kEquals[] = "_==_";
inline constexpr char kNotEquals[] = "_!=_";
inline constexpr char kLess[] = "_<_";
inline constexpr char kLessEquals[] = "_<=_";
inline constexpr char kGreater[] = "_>_";
inline constexpr char kGreaterEquals[] = "_>=_";
inline constexpr char kAdd[] = "_+_";
inline constexpr char kSubtract[] = "_-_";
inline constexpr char kMultiply[] = "_*_";
inline constexpr char kDivide[] = "_/_";
inline constexpr char kModulo[] = "_%_";
inline constexpr char kNegate[] = "-_";
inline constexpr char kIndex[] = "_[_]";
inline constexpr char kOptIndex[] = "_[?_]";
inline constexpr char kOptSelect[] = "_?._";
inline constexpr char kIn[] = "@in";
// Used by the all/exists macros: false only for `false`; errors and true both continue the loop.
inline constexpr char kNotStrictlyFalse[] = "@not_strictly_false";

// Names the macros bind inside their comprehensions (cel-go's names, which show in messages).
inline constexpr char kAccumulatorVar[] = "@result";

}  // namespace gpuprofile::cel::internal::op
