// Host tensors, half/bf16 conversions (round to nearest even) and the sentinel
// and guard patterns of tensor.h.
#include "tilescope/config/tensor.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "tilescope/base/dtype.h"

namespace tilescope {
namespace {

std::uint32_t floatBits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

float bitsFloat(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

template <typename T>
T load(const std::uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <typename T>
void store(std::uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

// Round-half-even to an integer type, saturating; NaN becomes 0 (as a cast on
// the device would be undefined, the host picks the least surprising value).
template <typename T>
T toInteger(double v) {
  if (std::isnan(v)) return T(0);
  const double r = std::nearbyint(v);
  constexpr double lo = static_cast<double>(std::numeric_limits<T>::min());
  constexpr double hi = static_cast<double>(std::numeric_limits<T>::max());
  if (r <= lo) return std::numeric_limits<T>::min();
  if (r >= hi) return std::numeric_limits<T>::max();
  return static_cast<T>(r);
}

}  // namespace

// ---- HostTensor ---------------------------------------------------------------------

std::int64_t HostTensor::elements() const {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

std::int64_t HostTensor::offsetOf(std::int64_t logicalIndex) const {
  if (strides.empty()) return logicalIndex;
  if (strides.size() != shape.size())
    throw std::runtime_error("tensor " + name + ": " + std::to_string(strides.size()) + " strides for rank " +
                             std::to_string(shape.size()));
  std::int64_t off = 0;
  for (std::size_t d = shape.size(); d-- > 0;) {
    const std::int64_t ext = shape[d] > 0 ? shape[d] : 1;
    off += (logicalIndex % ext) * strides[d];
    logicalIndex /= ext;
  }
  return off;
}

double HostTensor::at(std::int64_t i) const {
  const std::size_t sz = dtypeSize(dtype);
  const std::uint64_t byte = static_cast<std::uint64_t>(offsetOf(i)) * sz;
  if (byte + sz > bytes.size())
    throw std::out_of_range("tensor " + name + ": element " + std::to_string(i) + " lies past its " +
                            std::to_string(bytes.size()) + " bytes");
  return decodeElement(dtype, bytes.data() + byte);
}

std::uint64_t HostTensor::bitsAt(std::int64_t i) const {
  const std::size_t sz = dtypeSize(dtype);
  const std::uint64_t byte = static_cast<std::uint64_t>(offsetOf(i)) * sz;
  if (byte + sz > bytes.size())
    throw std::out_of_range("tensor " + name + ": element " + std::to_string(i) + " lies past its " +
                            std::to_string(bytes.size()) + " bytes");
  std::uint64_t bits = 0;
  std::memcpy(&bits, bytes.data() + byte, sz);  // little-endian host: zero-extends
  return bits;
}

// ---- half / bf16 ----------------------------------------------------------------------

float halfToFloat(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1Fu;
  const std::uint32_t mant = h & 0x3FFu;
  if (exp == 0) {
    // zero or subnormal: mant * 2^-24, exact in float
    const float mag = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -mag : mag;
  }
  if (exp == 31) return bitsFloat(sign | 0x7F800000u | (mant << 13));  // inf, NaN keeps its payload
  return bitsFloat(sign | ((exp + 112u) << 23) | (mant << 13));        // rebias 15 -> 127
}

std::uint16_t floatToHalf(float f) {
  const std::uint32_t x = floatBits(f);
  const auto sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  std::uint32_t ax = x & 0x7FFFFFFFu;
  if (ax > 0x7F800000u) {  // NaN: keep the payload's top bits, never turn it into inf
    auto m = static_cast<std::uint16_t>((ax >> 13) & 0x3FFu);
    if (m == 0) m = 0x200;
    return sign | 0x7C00u | m;
  }
  // 65520 = halfway between 65504 (max half, odd mantissa) and 65536: ties to even -> inf.
  if (ax >= 0x477FF000u) return sign | 0x7C00u;
  if (ax >= 0x38800000u) {  // >= 2^-14: a normal half
    const std::uint32_t odd = (ax >> 13) & 1u;
    ax += 0xC8000FFFu + odd;  // exponent -112 (mod 2^32) and round-half-even on the 13 dropped bits
    return static_cast<std::uint16_t>(sign | (ax >> 13));
  }
  // subnormal half: m = round_half_even(|f| * 2^24)
  const std::uint32_t e = ax >> 23;
  if (e < 102) return sign;  // below 2^-25 (exactly 2^-25 ties to 0, handled below too)
  const std::uint32_t mant = (ax & 0x7FFFFFu) | 0x800000u;
  const std::uint32_t shift = 126 - e;  // 14..24
  std::uint32_t m = mant >> shift;
  const std::uint32_t rem = mant & ((1u << shift) - 1u);
  const std::uint32_t half = 1u << (shift - 1);
  if (rem > half || (rem == half && (m & 1u))) ++m;  // a carry into 0x400 is the smallest normal
  return static_cast<std::uint16_t>(sign | m);
}

float bf16ToFloat(std::uint16_t h) { return bitsFloat(static_cast<std::uint32_t>(h) << 16); }

std::uint16_t floatToBf16(float f) {
  const std::uint32_t x = floatBits(f);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) {  // NaN: truncate, keep it a NaN
    auto r = static_cast<std::uint16_t>(x >> 16);
    if ((r & 0x7Fu) == 0) r |= 0x40u;
    return r;
  }
  const std::uint32_t odd = (x >> 16) & 1u;
  return static_cast<std::uint16_t>((x + 0x7FFFu + odd) >> 16);  // overflow rounds into inf
}

// ---- elements -------------------------------------------------------------------------

double decodeElement(DType dtype, const std::uint8_t* p) {
  switch (dtype) {
    case DType::f32:
      return load<float>(p);
    case DType::f64:
      return load<double>(p);
    case DType::f16:
      return halfToFloat(load<std::uint16_t>(p));
    case DType::bf16:
      return bf16ToFloat(load<std::uint16_t>(p));
    case DType::i32:
      return load<std::int32_t>(p);
    case DType::i64:
      return static_cast<double>(load<std::int64_t>(p));
    case DType::u8:
      return *p;
    case DType::i8:
      return static_cast<std::int8_t>(*p);
  }
  return 0;
}

void encodeElement(DType dtype, double v, std::uint8_t* p) {
  switch (dtype) {
    case DType::f32:
      store(p, static_cast<float>(v));
      return;
    case DType::f64:
      store(p, v);
      return;
    // double -> float -> half can double-round; the float step is exact for every
    // value a capture produces (inits are generated in float), so it is accepted.
    case DType::f16:
      store(p, floatToHalf(static_cast<float>(v)));
      return;
    case DType::bf16:
      store(p, floatToBf16(static_cast<float>(v)));
      return;
    case DType::i32:
      store(p, toInteger<std::int32_t>(v));
      return;
    case DType::i64:
      store(p, toInteger<std::int64_t>(v));
      return;
    case DType::u8:
      store(p, toInteger<std::uint8_t>(v));
      return;
    case DType::i8:
      store(p, toInteger<std::int8_t>(v));
      return;
  }
}

namespace {

// Bits type per element size, for the raw-bits copy.
template <std::size_t N>
struct BitsOf;
template <>
struct BitsOf<1> {
  using type = std::uint8_t;
};
template <>
struct BitsOf<2> {
  using type = std::uint16_t;
};
template <>
struct BitsOf<4> {
  using type = std::uint32_t;
};
template <>
struct BitsOf<8> {
  using type = std::uint64_t;
};

template <DType D, std::size_t N>
double decodeOne(typename BitsOf<N>::type b) {
  if constexpr (D == DType::f32) {
    float f;
    std::memcpy(&f, &b, 4);
    return f;
  } else if constexpr (D == DType::f64) {
    double f;
    std::memcpy(&f, &b, 8);
    return f;
  } else if constexpr (D == DType::f16) {
    return halfToFloat(b);
  } else if constexpr (D == DType::bf16) {
    return bf16ToFloat(b);
  } else if constexpr (D == DType::i32) {
    return static_cast<std::int32_t>(b);
  } else if constexpr (D == DType::i64) {
    return static_cast<double>(static_cast<std::int64_t>(b));
  } else if constexpr (D == DType::i8) {
    return static_cast<std::int8_t>(b);
  } else {
    return b;
  }
}

// Two plain loops (bits, then values) so that the compiler vectorises each.
template <DType D, std::size_t N>
void decodeContiguous(const std::uint8_t* p, std::int64_t count, double* values, std::uint64_t* bits) {
  using B = typename BitsOf<N>::type;
  if (bits)
    for (std::int64_t i = 0; i < count; ++i) {
      B b;
      std::memcpy(&b, p + i * N, N);
      bits[i] = b;
    }
  if (values)
    for (std::int64_t i = 0; i < count; ++i) {
      B b;
      std::memcpy(&b, p + i * N, N);
      values[i] = decodeOne<D, N>(b);
    }
}

}  // namespace

void decodeRange(const HostTensor& t, std::int64_t first, std::int64_t count, double* values,
                 std::uint64_t* bits) {
  if (count <= 0) return;
  const std::size_t sz = dtypeSize(t.dtype);
  // Contiguous when there are no strides, or the range lies within one run of the
  // innermost dimension with unit stride (the common row-by-row case).
  bool contiguous = t.strides.empty();
  if (!contiguous && !t.shape.empty() && t.strides.back() == 1) {
    const std::int64_t inner = t.shape.back();
    contiguous = inner > 0 && first / inner == (first + count - 1) / inner;
  }
  if (!contiguous) {
    for (std::int64_t i = 0; i < count; ++i) {
      if (values) values[i] = t.at(first + i);
      if (bits) bits[i] = t.bitsAt(first + i);
    }
    return;
  }
  const std::uint64_t byte = static_cast<std::uint64_t>(t.offsetOf(first)) * sz;
  if (byte + static_cast<std::uint64_t>(count) * sz > t.bytes.size())
    throw std::out_of_range("tensor " + t.name + ": elements " + std::to_string(first) + ".." +
                            std::to_string(first + count - 1) + " lie past its " +
                            std::to_string(t.bytes.size()) + " bytes");
  const std::uint8_t* p = t.bytes.data() + byte;
  switch (t.dtype) {
    case DType::f32:
      decodeContiguous<DType::f32, 4>(p, count, values, bits);
      return;
    case DType::f64:
      decodeContiguous<DType::f64, 8>(p, count, values, bits);
      return;
    case DType::f16:
      decodeContiguous<DType::f16, 2>(p, count, values, bits);
      return;
    case DType::bf16:
      decodeContiguous<DType::bf16, 2>(p, count, values, bits);
      return;
    case DType::i32:
      decodeContiguous<DType::i32, 4>(p, count, values, bits);
      return;
    case DType::i64:
      decodeContiguous<DType::i64, 8>(p, count, values, bits);
      return;
    case DType::u8:
      decodeContiguous<DType::u8, 1>(p, count, values, bits);
      return;
    case DType::i8:
      decodeContiguous<DType::i8, 1>(p, count, values, bits);
      return;
  }
}

// ---- sentinel and guard patterns -------------------------------------------------------

std::uint64_t sentinelBits(DType dtype, int variant) {
  // Variant 0, floats: signalling NaNs (quiet bit clear, payload non-zero) with a
  // readable payload "BAD". Arithmetic never makes a signalling NaN (IEEE results
  // are quiet), so a sentinel left in the output means the element was never
  // stored, not that it was computed as NaN.
  // Variant 1 (diagnose's second poison) is a FINITE pattern of 0x5C bytes
  // (f32 2.48e17, f16 279.0): a kernel that reads an output before writing it
  // (an accumulator nobody zeroed) turns either NaN sentinel into the same
  // canonical NaN, but a finite poison changes its numbers, which is what proves
  // that the output depends on memory the kernel never initialised.
  const bool second = variant != 0;
  switch (dtype) {
    case DType::f32:
      return second ? 0x5C5C5C5Cull : 0x7FBADBADull;
    case DType::f64:
      return second ? 0x5C5C5C5C5C5C5C5Cull : 0x7FF4BADBADBADBADull;
    case DType::f16:
      return second ? 0x5C5Cull : 0x7DBAull;
    case DType::bf16:
      return second ? 0x5C5Cull : 0x7FBAull;
    case DType::i32:
      return second ? 0x5C5C5C5Cull : 0xBABABABAull;
    case DType::i64:
      return second ? 0x5C5C5C5C5C5C5C5Cull : 0xBABABABABABABABAull;
    case DType::u8:
    case DType::i8:
      return second ? 0x5Cull : 0xBAull;
  }
  return 0;
}

bool guardIsNan(DType dtype) { return isFloating(dtype); }

std::uint8_t guardByte(DType dtype, std::size_t byteIndexInElement) {
  // Quiet NaNs so that a load past the end poisons whatever it feeds into.
  if (!guardIsNan(dtype)) return 0xA5;
  std::uint64_t pattern = 0;
  switch (dtype) {
    case DType::f32:
      pattern = 0x7FC0DEADull;
      break;
    case DType::f64:
      pattern = 0x7FF8DEAD7FC0DEADull;
      break;
    case DType::f16:
      pattern = 0x7E5Aull;
      break;
    case DType::bf16:
      pattern = 0x7FDAull;
      break;
    default:
      return 0xA5;
  }
  const std::size_t i = byteIndexInElement % dtypeSize(dtype);
  return static_cast<std::uint8_t>(pattern >> (8 * i));  // little-endian byte order
}

}  // namespace tilescope
