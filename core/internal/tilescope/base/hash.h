// FNV-1a, 64-bit: the one hash for what must come out the same on every
// platform and run: a tensor's seed from its name, a module image's file name,
// the file a sweep's workers share for the baseline's counters, an output's
// digest. Not cryptographic: equal inputs give equal values, and nothing more
// is promised.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace tilescope {

inline constexpr std::uint64_t kFnv1aOffset = 14695981039346656037ull;
inline constexpr std::uint64_t kFnv1aPrime = 1099511628211ull;

/// Folds `n` bytes into `h`, a byte at a time. (A name of its own: an overload
/// of fnv1a(string_view, h) would take fnv1a("text", h) as a pointer and a size.)
inline std::uint64_t fnv1aBytes(const void* data, std::size_t n, std::uint64_t h = kFnv1aOffset) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * kFnv1aPrime;
  return h;
}

inline std::uint64_t fnv1a(std::string_view s, std::uint64_t h = kFnv1aOffset) {
  return fnv1aBytes(s.data(), s.size(), h);
}

/// FNV-1a over 8-byte words (in the host's byte order), then the last n % 8
/// bytes one at a time: eight times fewer dependent multiplies than fnv1aBytes, for
/// buffers of many megabytes. Its values differ from fnv1a's.
inline std::uint64_t fnv1aWords(const void* data, std::size_t n, std::uint64_t h = kFnv1aOffset) {
  const auto* p = static_cast<const unsigned char*>(data);
  const std::size_t words = n / 8;
  for (std::size_t i = 0; i < words; ++i) {
    std::uint64_t w;
    std::memcpy(&w, p + 8 * i, 8);
    h = (h ^ w) * kFnv1aPrime;
  }
  return fnv1aBytes(p + 8 * words, n % 8, h);
}

}  // namespace tilescope
