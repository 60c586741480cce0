// Element types of tensors and scalar types of kernel arguments (docs/config.md:
// a tensor's `dtype`, an argument's `:i64` suffix). Their own header so that the
// .npy reader needs no config model.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace tilescope {

enum class DType { f32, f16, bf16, f64, i32, i64, u8, i8 };
std::size_t dtypeSize(DType t);
const char* dtypeName(DType t);
std::optional<DType> parseDType(const std::string& name);
bool isFloating(DType t);

/// Scalar argument types (`"EXPR:i64"`, docs/config.md `args`).
enum class ScalarType { i32, i64, u32, u64, f32, f64 };
const char* scalarTypeName(ScalarType t);

}  // namespace tilescope
