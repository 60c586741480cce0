// The CUDA recorder inside a captured program (libtilescope_inject.so, loaded
// by the driver through CUDA_INJECTION64_PATH; docs/capture.md). It sees every
// kernel launch through CUPTI's driver-API callbacks, keeps the module images
// the program loads, and for each selected launch writes
// DIR/launches/c<pid>-<n>/ (tilescope.launch/1): the kernel, its geometry,
// each parameter resolved (a pointer to its allocation, the bytes the kernel
// can reach there before and after the launch; scalars by value).
#pragma once

#include <cuda.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tilescope/capture/launch_record.h"
#include "tilescope/capture/selection.h"
#include "tilescope/cuda/compile.h"

namespace tilescope::inject {

/// A launch as the driver API call described it.
struct LaunchCall {
  CUfunction f = nullptr;
  unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1}, cluster[3] = {1, 1, 1};
  unsigned sharedBytes = 0;
  CUstream stream = nullptr;
  bool perThreadStream = false;  ///< a _ptsz entry point: stream 0 is the per-thread stream
  void** params = nullptr;
  void** extra = nullptr;
};

class Recorder {
 public:
  static Recorder& instance();
  /// Reads the environment (TILESCOPE_CAPTURE_DIR and the selection); false
  /// when capture is off or misconfigured (a note says why).
  bool configure();
  bool enabled() const { return m_enabled; }

  void moduleLoaded(const char* image, std::size_t size);
  void launchEnter(const LaunchCall& c);
  void launchExit(CUresult result);
  void runtimeEnter();
  void runtimeExit(const char* symbol);

  // The Triton recorder's side (resources/python/tilescope/capture): it records a
  // Triton launch itself, claims it here so that it is not recorded twice,
  // and numbers it in the same sequence.
  void claim(std::uint64_t function);
  std::int64_t nextIndex() const { return m_index.load(); }
  bool select(const std::string& name, const std::string& key);

  /// An event line for the parent (DIR/events.jsonl); one write() per line.
  void event(const std::string& jsonLine);
  void note(const std::string& message);
  /// At process exit: a summary event.
  void finish();

 private:
  struct Image {
    std::string hash;  ///< of the bytes; the file name under modules/
    std::string bytes;
    std::map<std::string, cuda::CubinKernelInfo> kernels;  ///< by symbol: registers, shared memory, threads
    std::string saved;                                     ///< "modules/<hash>.cubin" once written
  };
  struct PointerArg {
    std::size_t arg = 0;  ///< index into the record's args (memory: into its memory regions)
    bool memory = false;
    CUdeviceptr ptr = 0;
    std::size_t bytes = 0;  ///< what was copied
    std::vector<std::uint8_t> before;
  };
  struct Pending {
    LaunchRecord record;
    std::vector<PointerArg> pointers;
    CUevent start = nullptr, end = nullptr;
    CUstream stream = nullptr;
    std::filesystem::path tmp;
  };

  static thread_local std::unique_ptr<Pending> s_pending;  ///< between a launch's enter and exit

  /// The saved image the launched `fn` came from: of the loaded images that
  /// define the symbol, the newest whose kernel matches fn's registers and
  /// static shared memory and admits `threads` per block (a JIT loads one
  /// module per configuration under one name: Inductor's autotuner), else the
  /// newest with a note; "" when none.
  std::string imageFor(const std::string& symbol, CUfunction fn, unsigned threads,
                       std::vector<std::string>* notes);
  void writeEnvironment();
  void finishLaunch(Pending& p, CUresult launchResult);
  /// Saves the bytes a pointer argument (or a memory region) reaches before the launch.
  void saveBefore(Pending& p, bool memory, std::size_t index);

  bool m_enabled = false;
  std::filesystem::path m_dir;
  std::optional<LaunchSelector> m_selector;
  std::mutex m_mutex;  ///< everything below, and the selector
  std::atomic<std::int64_t> m_index{0};
  std::int64_t m_recorded = 0, m_seq = 0;
  std::vector<Image> m_images;
  bool m_envWritten = false;
  std::set<std::string> m_runtimeNoted;
  int m_eventFd = -1;
};

}  // namespace tilescope::inject
