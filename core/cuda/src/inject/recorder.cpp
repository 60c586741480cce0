// The CUDA recorder: selection, parameter resolution, the bytes before and
// after, the launch folder. Runs inside the user's program: every failure
// becomes a note, never an exception into the program.
#include "inject/recorder.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "tilescope/base/hash.h"
#include "tilescope/cuda/compile.h"
#include "tilescope/model/report.h"

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

void Recorder::moduleLoaded(const char* image, std::size_t size, CUmodule module) {
  if (!image || size == 0) return;
  // The kernels of the image (an ELF cubin, or a fatbin holding one).
  const cuda::CubinInfo info = cuda::inspectCubin(std::vector<char>(image, image + size));
  if (info.kernels.empty()) return;
  std::lock_guard<std::mutex> lock(m_mutex);
  Image im;
  im.hash = hex(fnv1aBytes(image, size));  // names the image's file; a collision only shares a name
  for (Image& o : m_images)
    if (o.hash == im.hash) {  // loaded again (another context)
      if (module) o.modules.push_back(module);
      return;
    }
  im.bytes.assign(image, size);
  for (const cuda::CubinKernelInfo& k : info.kernels) im.symbols.insert(k.name);
  if (module) im.modules.push_back(module);
  m_images.push_back(std::move(im));
}

std::string Recorder::imageFor(const std::string& symbol, CUfunction fn, std::vector<std::string>* notes) {
  // The image of the function's own module: a JIT (Triton's autotuner, Inductor)
  // loads several modules with one kernel name, one per configuration, and only
  // the launch's own runs with its block size.
  CUmodule mod = nullptr;
  if (fn && cuFuncGetModule(&mod, fn) != CUDA_SUCCESS) mod = nullptr;
  Image* found = nullptr;
  int holders = 0;
  for (auto it = m_images.rbegin(); it != m_images.rend(); ++it) {
    if (!it->symbols.count(symbol)) continue;
    ++holders;
    if (mod && std::find(it->modules.begin(), it->modules.end(), mod) != it->modules.end()) {
      found = &*it;
      break;
    }
  }
  if (!found) {
    // Not seen loading (a library's module): the most recently loaded image with the symbol.
    for (auto it = m_images.rbegin(); it != m_images.rend() && !found; ++it)
      if (it->symbols.count(symbol)) found = &*it;
    if (found && holders > 1)
      notes->push_back(std::to_string(holders) + " loaded images define " + symbol +
                       " and the launch's module was not seen loading: the newest was taken");
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
