// Process-wide CUPTI activity collection of kernel records, correlated to the
// caller's repetitions through external correlation ids. CUPTI types stay in
// cupti_collector.cpp (STYLE: vendor types out of headers).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tilescope::cuda {

/// One kernel execution as CUPTI recorded it.
struct KernelRecord {
  std::uint64_t externalId = 0;  ///< the repetition id pushed around the launch (0: none)
  std::uint64_t startNs = 0, endNs = 0;
  int regs = -1;
  std::int64_t smemStatic = -1, smemDynamic = -1, localPerThread = -1;
  std::string name;
};

class CuptiCollector {
 public:
  /// The process's collector; the first call registers CUPTI's buffer callbacks.
  static CuptiCollector& instance();

  /// Enables kernel + external-correlation records. Returns "" or a readable
  /// reason CUPTI cannot be used (the caller falls back to events).
  std::string start();
  /// Flushes and disables the activity kinds (other launches run unobserved again).
  void stop();
  /// Brackets the launches of one repetition: records get `id` as externalId.
  void pushId(std::uint64_t id);
  void popId();
  /// Flushes CUPTI's buffers (call after synchronising) and moves out every
  /// kernel record that carries an external id, dropping the rest.
  std::vector<KernelRecord> drain();
  /// Records lost because CUPTI ran out of buffer space since start().
  std::uint64_t dropped() const;

 private:
  CuptiCollector() = default;
  bool m_registered = false;
  std::string m_initError;
};

}  // namespace tilescope::cuda
