// The CUDA recorder: selection, parameter resolution, the bytes before and
// after, the launch folder. Runs inside the user's program: every failure
// becomes a note, never an exception into the program.
#include "inject/recorder.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>

#include "tilescope/base/atomic_write.h"
#include "tilescope/base/hash.h"
#include "tilescope/base/json_text.h"
#include "tilescope/cuda/compile.h"

namespace tilescope::inject {

namespace fs = std::filesystem;

thread_local std::uint64_t t_claimed = 0;  ///< the Triton recorder's next launch
thread_local bool t_driverSeen = false;    ///< a driver launch callback within a runtime launch

namespace {

std::string hex(std::uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

thread_local std::unique_ptr<Recorder::Pending> Recorder::s_pending;

Recorder& Recorder::instance() {
  static Recorder* r = new Recorder();  // never destroyed: callbacks may run during exit
  return *r;
}

bool Recorder::configure() {
  const char* dir = std::getenv("TILESCOPE_CAPTURE_DIR");
  if (!dir || !*dir) return false;
  m_dir = dir;
  std::error_code ec;
  fs::create_directories(m_dir / "launches", ec);
  fs::create_directories(m_dir / "modules", ec);
  m_eventFd = ::open((m_dir / "events.jsonl").c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  try {
    m_selector.emplace(LaunchSelection::fromEnvironment());
  } catch (const std::exception& e) {
    note(std::string("the CUDA recorder is off: ") + e.what());
    return false;
  }
  m_enabled = true;
  return true;
}

void Recorder::event(const std::string& line) {
  if (m_eventFd < 0) return;
  const std::string l = line + "\n";
  [[maybe_unused]] const ssize_t n = ::write(m_eventFd, l.data(), l.size());
}

void Recorder::note(const std::string& message) {
  nlohmann::json j = {
      {"event", "note"}, {"recorder", "cuda"}, {"pid", int(::getpid())}, {"message", message}};
  event(dumpJson(j));
}

void Recorder::moduleLoaded(const char* image, std::size_t size) {
  if (!image || size == 0) return;
  // The kernels of the image (an ELF cubin, or a fatbin holding one).
  const cuda::CubinInfo info = cuda::inspectCubin(std::vector<char>(image, image + size));
  if (info.kernels.empty()) return;
  std::lock_guard<std::mutex> lock(m_mutex);
  Image im;
  im.hash = hex(fnv1aBytes(image, size));  // names the image's file; a collision only shares a name
  for (const Image& o : m_images)
    if (o.hash == im.hash) return;  // loaded again (another context)
  im.bytes.assign(image, size);
  for (const cuda::CubinKernelInfo& k : info.kernels) im.kernels[k.name] = k;
  m_images.push_back(std::move(im));
}

namespace {

/// Whether the loaded function `fn` can be `k` of an image: the same registers
/// and static shared memory, and a block size its launch bounds admit.
bool sameKernel(CUfunction fn, const cuda::CubinKernelInfo& k, unsigned threads) {
  int regs = -1, smem = -1;
  if (k.maxThreads > 0 && int(threads) > k.maxThreads) return false;
  if (!fn || cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, fn) != CUDA_SUCCESS ||
      cuFuncGetAttribute(&smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn) != CUDA_SUCCESS)
    return true;  // nothing to tell them apart by
  return (k.regs < 0 || k.regs == regs) && (k.smemStatic < 0 || k.smemStatic == smem);
}

}  // namespace

std::string Recorder::imageFor(const std::string& symbol, CUfunction fn, unsigned threads,
                               std::vector<std::string>* notes) {
  // The newest first: a program that reloads a module (a JIT) launches from the newest.
  Image* found = nullptr;
  int holders = 0;
  for (auto it = m_images.rbegin(); it != m_images.rend(); ++it) {
    auto k = it->kernels.find(symbol);
    if (k == it->kernels.end()) continue;
    ++holders;
    if (!found && sameKernel(fn, k->second, threads)) found = &*it;
  }
  if (!found && holders > 0) {
    for (auto it = m_images.rbegin(); it != m_images.rend() && !found; ++it)
      if (it->kernels.count(symbol)) found = &*it;
    notes->push_back(std::to_string(holders) + " loaded image(s) define " + symbol +
                     " and none matches the launched function's registers, shared memory and block size: "
                     "the newest was taken");
  }
  if (!found) return "";
  if (found->saved.empty()) {
    const std::string rel = "modules/" + found->hash + ".cubin";
    try {
      writeFileAtomically(m_dir / rel, found->bytes);
      found->saved = rel;
    } catch (const std::exception& e) {
      note(std::string("the module image of ") + symbol + " was not saved: " + e.what());
      return "";
    }
  }
  return found->saved;
}

void Recorder::writeEnvironment() {
  if (m_envWritten) return;
  m_envWritten = true;
  nlohmann::json env;
  int driver = 0;
  if (cuDriverGetVersion(&driver) == CUDA_SUCCESS)
    env["cuda_driver_version"] = std::to_string(driver / 1000) + "." + std::to_string(driver % 1000 / 10);
  CUdevice dev = 0;
  if (cuCtxGetDevice(&dev) == CUDA_SUCCESS) {
    char name[256] = {};
    if (cuDeviceGetName(name, sizeof name, dev) == CUDA_SUCCESS) env["gpu"] = name;
    int major = 0, minor = 0;
    cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    env["gpu_cc"] = std::to_string(major) + "." + std::to_string(minor);
  }
  try {
    writeFileAtomically(m_dir / ("env-" + std::to_string(::getpid()) + "-cuda.json"), dumpJson(env, 1));
  } catch (const std::exception&) {
  }
}

void Recorder::claim(std::uint64_t function) { t_claimed = function; }

bool Recorder::select(const std::string& name, const std::string& key) {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_selector && m_selector->select(name, "", key);
}

void Recorder::runtimeEnter() { t_driverSeen = false; }

void Recorder::runtimeExit(const char* symbol) {
  if (t_driverSeen || !symbol) return;
  std::lock_guard<std::mutex> lock(m_mutex);
  if (m_runtimeNoted.insert(symbol).second)
    note(std::string("a runtime launch of ") + symbol + " reached no driver launch callback: not recorded");
}

}  // namespace tilescope::inject
