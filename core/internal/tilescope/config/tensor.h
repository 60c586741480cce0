// Host-side tensors and element conversions shared by capture (core/cuda), the
// comparison and scanning code in core, and .npy reading.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "tilescope/config/config.h"

namespace tilescope {

/// A dense host copy of a tensor (row-major over `shape`, or over the strided span).
struct HostTensor {
  std::string name;
  DType dtype = DType::f32;
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> strides;  ///< elements; empty = contiguous
  std::vector<std::uint8_t> bytes;

  std::int64_t elements() const;
  /// Element i (row-major logical index, honouring strides) as double.
  double at(std::int64_t i) const;
  /// The raw bits of logical element i (zero-extended).
  std::uint64_t bitsAt(std::int64_t i) const;
  std::int64_t offsetOf(std::int64_t logicalIndex) const;  ///< element offset in `bytes`
};

float halfToFloat(std::uint16_t h);
std::uint16_t floatToHalf(float f);  ///< round to nearest even
float bf16ToFloat(std::uint16_t h);
std::uint16_t floatToBf16(float f);  ///< round to nearest even

/// Decodes one element of `dtype` at `p` as double.
double decodeElement(DType dtype, const std::uint8_t* p);
/// Encodes `v` as `dtype` at `p`.
void encodeElement(DType dtype, double v, std::uint8_t* p);

/// Decodes logical elements [first, first + count) of `t` (row-major, honouring
/// strides) into `values` (when not null) and, when `bits` is not null, their raw bits
/// (zero-extended). One call per row keeps the per-element dtype dispatch out of
/// hot loops (scan and compare of 16384^2 outputs). Throws std::out_of_range
/// when the range reaches past `t.bytes`.
void decodeRange(const HostTensor& t, std::int64_t first, std::int64_t count, double* values,
                 std::uint64_t* bits);

/// The sentinel an output starts with when it has no `init`: a bit pattern that a
/// kernel is very unlikely to compute (a signalling-NaN payload for floats, a
/// repeated byte for integers). `variant` 1 gives a second, different pattern
/// (diagnose's second poison run).
std::uint64_t sentinelBits(DType dtype, int variant = 0);
/// True when guard zones of this dtype hold a quiet NaN (floating dtypes), so that
/// unmasked reads past a tensor's end surface in the output as NaN.
bool guardIsNan(DType dtype);
/// The pattern guard zones hold: a quiet NaN where guardIsNan, 0xA5 bytes otherwise.
std::uint8_t guardByte(DType dtype, std::size_t byteIndexInElement);

}  // namespace tilescope
