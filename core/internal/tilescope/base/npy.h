// NumPy .npy files for `init: "npy:PATH"` and `expected: "npy:PATH"` (docs/config.md, `.npy` files).
//
// Read: format versions 1, 2 and 3, little-endian, C order. Element types
// <f4 <f2 <f8 <i4 <i8 |u1 |i1, and for bf16 tensors <u2 holding the raw bf16
// bits (NumPy has no bfloat16; `<V2`, which ml_dtypes' bfloat16 saves as, is
// accepted too). See docs/config.md.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "tilescope/base/dtype.h"

namespace tilescope {

/// A file that is not a readable .npy of a supported kind; what() starts with the file.
struct NpyError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct NpyHeader {
  int version = 1;    ///< format major version (1, 2 or 3)
  std::string descr;  ///< NumPy type string, e.g. "<f4"
  bool fortranOrder = false;
  std::vector<std::int64_t> shape;  ///< () is a scalar: one element
  std::size_t dataOffset = 0;       ///< bytes from the file's start to the data
  std::int64_t elements() const;    ///< -1 when the product exceeds 2^62
};

struct NpyArray {
  NpyHeader header;
  std::vector<std::uint8_t> data;  ///< little-endian elements in C order
};

/// The descr TileScope writes for a dtype ("<f4"; bf16 is "<u2" holding raw bits).
std::string npyDescr(DType dtype);
/// Whether a file's descr can hold a tensor of `dtype` (bf16 accepts <u2 and <V2/|V2).
bool npyDescrFits(DType dtype, const std::string& descr);

/// Reads and checks the header only. Throws NpyError.
NpyHeader readNpyHeader(const std::filesystem::path& file);
/// Reads header and data. Throws NpyError (fortran order, big-endian, unknown
/// dtype, truncated data).
NpyArray readNpy(const std::filesystem::path& file);
/// Same as readNpy, from the bytes of a file in memory (`label` names it in errors).
NpyArray parseNpy(const std::string& bytes, const std::string& label);
/// A shape as messages print it: "[2, 3]".
std::string npyShapeText(const std::vector<std::int64_t>& shape);
/// Writes a version 1 file (version 2 if the header needs it). Throws NpyError.
void writeNpy(const std::filesystem::path& file, DType dtype, const std::vector<std::int64_t>& shape,
              const void* data, std::size_t bytes);

}  // namespace tilescope
