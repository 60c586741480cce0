// A CUDA kernel's parameter types from its demangled name
// ("add(float const*, float const*, float*, int)"), for the CUDA recorder:
// pointer parameters get their element type (a float* buffer is f32, not
// bytes), const pointers are inputs, and scalars print as what they are.
// extern "C" kernels have no signature in their names: their parameters stay
// untyped.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tilescope {

struct KernelParamType {
  std::string type;      ///< the base type as written ("float", "__half", "int", "Params<4>")
  bool pointer = false;  ///< T* (one level; T** counts as an untyped pointer)
  bool isConst = false;  ///< T const* / const T*
  /// TileScope's dtype of the pointee or scalar (f32, f16, bf16, f64, i32, i64,
  /// u8, i8), "" when none fits (a struct, unsigned int, ...).
  std::string dtype;
};

/// `__cxa_demangle` of `mangled`, or "" when it is not a C++ name.
std::string demangleSymbol(const std::string& mangled);

/// The parameter list of a demangled function name; nullopt when the name has
/// none (not a function, or not demangled).
std::optional<std::vector<KernelParamType>> kernelParamTypes(const std::string& demangled);

/// The function's name without its parameter list and template arguments'
/// clutter: "void ns::add<float>(float*, int)" -> "ns::add<float>".
std::string kernelBaseName(const std::string& demangled);

/// kernelBaseName without template arguments, as a person names a kernel:
/// "void at::native::reduce_kernel<512, 1, Op>(Op)" -> "at::native::reduce_kernel".
std::string kernelShortName(const std::string& demangled);

}  // namespace tilescope
