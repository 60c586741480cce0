// Element and scalar type names (docs/config.md: `dtype` and argument suffixes).
#include "tilescope/base/dtype.h"

namespace tilescope {

std::size_t dtypeSize(DType t) {
  switch (t) {
    case DType::f64:
    case DType::i64:
      return 8;
    case DType::f32:
    case DType::i32:
      return 4;
    case DType::f16:
    case DType::bf16:
      return 2;
    case DType::u8:
    case DType::i8:
      return 1;
  }
  return 0;
}

const char* dtypeName(DType t) {
  switch (t) {
    case DType::f32:
      return "f32";
    case DType::f16:
      return "f16";
    case DType::bf16:
      return "bf16";
    case DType::f64:
      return "f64";
    case DType::i32:
      return "i32";
    case DType::i64:
      return "i64";
    case DType::u8:
      return "u8";
    case DType::i8:
      return "i8";
  }
  return "?";
}

std::optional<DType> parseDType(const std::string& name) {
  for (DType t :
       {DType::f32, DType::f16, DType::bf16, DType::f64, DType::i32, DType::i64, DType::u8, DType::i8})
    if (name == dtypeName(t)) return t;
  return std::nullopt;
}

bool isFloating(DType t) { return t == DType::f32 || t == DType::f16 || t == DType::bf16 || t == DType::f64; }

const char* scalarTypeName(ScalarType t) {
  switch (t) {
    case ScalarType::i32:
      return "i32";
    case ScalarType::i64:
      return "i64";
    case ScalarType::u32:
      return "u32";
    case ScalarType::u64:
      return "u64";
    case ScalarType::f32:
      return "f32";
    case ScalarType::f64:
      return "f64";
  }
  return "?";
}

}  // namespace tilescope
