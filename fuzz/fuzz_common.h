// Shared by the fuzz harnesses: what an input is allowed to do. A harness
// catches exactly the error type its API documents; anything else escaping
// (another exception type, a crash, a sanitizer report, a hang) is a finding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>

namespace tilescope::fuzz {

inline std::string text(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

/// A broken promise of the API (an empty error message, a result that
/// contradicts itself): abort so that the fuzzer keeps the input.
[[noreturn]] inline void violated(const std::string& what) {
  std::cerr << "fuzz invariant violated: " << what << '\n';
  std::abort();
}

}  // namespace tilescope::fuzz
