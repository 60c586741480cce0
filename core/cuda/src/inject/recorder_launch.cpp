// One launch through the CUDA recorder: resolve the parameters, select, copy
// the reachable bytes before the launch, and after it (the outputs are the
// buffers whose bytes changed), then publish the launch folder atomically.
#include <unistd.h>

#include <chrono>
#include <cstring>

#include "inject/recorder.h"
#include "tilescope/base/atomic_write.h"
#include "tilescope/base/json_text.h"
#include "tilescope/base/npy.h"
#include "tilescope/capture/kernel_signature.h"
#include "tilescope/capture/param_pointers.h"
#include "tilescope/config/config.h"

namespace tilescope::inject {

namespace fs = std::filesystem;

extern thread_local std::uint64_t t_claimed;
extern thread_local bool t_driverSeen;

namespace {

std::string errorName(CUresult r) {
  const char* s = nullptr;
  cuGetErrorName(r, &s);
  return s ? s : "CUDA error " + std::to_string(int(r));
}

std::size_t dtypeSize(const std::string& d) {
  if (d == "f64" || d == "i64") return 8;
  if (d == "f32" || d == "i32") return 4;
  if (d == "f16" || d == "bf16") return 2;
  return 1;
}

DType dtypeOf(const std::string& d) {
  static const std::map<std::string, DType> m = {
      {"f32", DType::f32}, {"f16", DType::f16}, {"bf16", DType::bf16}, {"f64", DType::f64},
      {"i32", DType::i32}, {"i64", DType::i64}, {"i8", DType::i8}};
  auto it = m.find(d);
  return it == m.end() ? DType::u8 : it->second;
}

/// The parameter's bytes: kernelParams[i], or the packed buffer of
/// CU_LAUNCH_PARAM_BUFFER_POINTER at the parameter's offset.
const void* paramValue(const LaunchCall& c, std::size_t i, std::size_t offset, std::size_t size) {
  if (c.params) return c.params[i];
  if (!c.extra) return nullptr;
  const char* buf = nullptr;
  std::size_t bufSize = 0;
  for (void** e = c.extra; *e != CU_LAUNCH_PARAM_END; e += 2) {
    if (e[0] == CU_LAUNCH_PARAM_BUFFER_POINTER) buf = static_cast<const char*>(e[1]);
    if (e[0] == CU_LAUNCH_PARAM_BUFFER_SIZE) bufSize = *static_cast<const std::size_t*>(e[1]);
  }
  return buf && offset + size <= bufSize ? buf + offset : nullptr;
}

/// The kernel's name and a CUfunction for it: launches may pass a CUkernel
/// (context-independent loading), which cuKernelGetFunction turns into one.
bool functionOf(CUfunction f, CUfunction* fn, std::string* symbol) {
  const char* name = nullptr;
  if (cuFuncGetName(&name, f) == CUDA_SUCCESS && name) {
    *fn = f;
    *symbol = name;
    return true;
  }
  CUfunction g = nullptr;
  if (cuKernelGetFunction(&g, reinterpret_cast<CUkernel>(f)) == CUDA_SUCCESS && g &&
      cuFuncGetName(&name, g) == CUDA_SUCCESS && name) {
    *fn = g;
    *symbol = name;
    return true;
  }
  return false;
}

/// The device allocation holding `p`, or false for host memory, a freed or a
/// foreign address (then the 8 bytes are a scalar).
bool allocationOf(std::uint64_t p, CUdeviceptr* base, std::size_t* size) {
  CUmemorytype type{};
  CUdeviceptr start = 0;
  std::size_t bytes = 0;
  CUpointer_attribute attrs[3] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                  CU_POINTER_ATTRIBUTE_RANGE_SIZE};
  void* values[3] = {&type, &start, &bytes};
  if (cuPointerGetAttributes(3, attrs, values, CUdeviceptr(p)) != CUDA_SUCCESS) return false;
  if (type != CU_MEMORYTYPE_DEVICE && type != CU_MEMORYTYPE_UNIFIED) return false;
  if (start == 0 || p < start || p >= start + bytes) return false;
  *base = start;
  *size = bytes;
  return true;
}

std::optional<DeviceAllocation> lookupAllocation(std::uint64_t p) {
  CUdeviceptr base = 0;
  std::size_t size = 0;
  if (!allocationOf(p, &base, &size)) return std::nullopt;
  return DeviceAllocation{std::uint64_t(base), std::uint64_t(size)};
}

/// Resolves every parameter of the launch into r.args; the content of each
/// parameter passed as bytes (a struct by value) goes to *bytes. Returns the
/// key of its specialisation and shapes (for the default one-per-key selection).
std::string resolveParams(const LaunchCall& c, CUfunction fn, LaunchRecord& r,
                          std::vector<ByteParam>* bytes) {
  const std::string demangled = demangleSymbol(r.symbol);
  const auto types = kernelParamTypes(demangled);
  std::string key = std::to_string(c.grid[0]) + "," + std::to_string(c.grid[1]) + "," +
                    std::to_string(c.grid[2]) + "|" + std::to_string(c.block[0]) + "," +
                    std::to_string(c.block[1]) + "," + std::to_string(c.block[2]) + "|" +
                    std::to_string(c.sharedBytes);
  for (std::size_t i = 0;; ++i) {
    std::size_t off = 0, size = 0;
    if (cuFuncGetParamInfo(fn, i, &off, &size) != CUDA_SUCCESS) break;
    LaunchArg a;
    a.name = "p" + std::to_string(i);
    a.index = int(i);
    a.offset = std::uint32_t(off);
    a.size = std::uint32_t(size);
    const KernelParamType* t = types && types->size() > i ? &(*types)[i] : nullptr;
    if (t) a.type = t->pointer ? t->type + "*" : t->type;
    const void* v = paramValue(c, i, off, size);
    if (!v) {
      a.kind = "unresolved";
      a.reason = "its value was not passed in kernelParams or a parameter buffer";
    } else if (size > kMaxKernelParamBytes) {
      a.kind = "unresolved";
      a.reason = "a " + std::to_string(size) + "-byte parameter, larger than a kernel's parameters can be";
    } else if (size != 1 && size != 2 && size != 4 && size != 8) {
      // A struct passed by value: its bytes, with the pointers inside found
      // once the launch is selected (planParamPointers).
      a.kind = "bytes";
      const auto* p = static_cast<const std::uint8_t*>(v);
      bytes->push_back({a.name, std::vector<std::uint8_t>(p, p + size)});
      key += "|B" + std::to_string(size);
    } else {
      std::uint64_t bits = 0;
      std::memcpy(&bits, v, size);
      CUdeviceptr base = 0;
      std::size_t allocSize = 0;
      if (size == 8 && bits != 0 && allocationOf(bits, &base, &allocSize)) {
        a.kind = "pointer";
        a.dataPtr = bits;
        a.allocationBase = base;
        a.allocationSize = allocSize;
        a.isConst = t && t->isConst;
        const std::size_t reach = std::size_t(base + allocSize - bits);
        a.dtype = t && t->pointer && !t->dtype.empty() && reach % dtypeSize(t->dtype) == 0 ? t->dtype : "u8";
        a.shape = {std::int64_t(reach / dtypeSize(a.dtype))};
        key += "|P" + std::to_string(reach);
      } else if (t && t->pointer && bits != 0) {
        a.kind = "unresolved";
        a.reason = "a pointer that is not device memory (host memory, or freed)";
      } else {
        a.kind = "scalar";
        a.value = bits;
        key += "|S" + std::to_string(size);
      }
    }
    r.args.push_back(std::move(a));
  }
  return key;
}

LaunchArg* argNamed(LaunchRecord& r, const std::string& name) {
  for (LaunchArg& a : r.args)
    if (a.name == name) return &a;
  return nullptr;
}

/// The pointers inside the launch's struct parameters (param_pointers.h): each
/// struct's bytes saved as <name>.bin, its pointer-looking words, the memory
/// regions they reach (saved like pointers' reach) and the notes.
void recordStructPointers(LaunchRecord& r, const std::vector<ByteParam>& structs, const fs::path& dir) {
  std::vector<PointerParam> tops;
  for (const LaunchArg& a : r.args)
    if (a.kind == "pointer") tops.push_back({a.name, a.dataPtr, {a.allocationBase, a.allocationSize}});
  const PointerPlan plan = planParamPointers(structs, tops, lookupAllocation);
  for (const ByteParam& b : structs) {
    LaunchArg* a = argNamed(r, b.name);
    try {
      a->before = a->name + ".bin";
      writeFileAtomically(dir / a->before, std::string(b.bytes.begin(), b.bytes.end()));
    } catch (const std::exception& e) {
      a->before.clear();
      r.skipped.push_back({a->name, e.what()});
    }
  }
  for (const PointerWord& w : plan.words)
    argNamed(r, w.param)
        ->words.push_back({w.offset, w.value, pointerWordClassName(w.cls), w.target, w.delta});
  for (const RebasedPointer& b : plan.rebased) {
    LaunchArg* a = argNamed(r, b.param);
    a->rebasedOnto = b.target;
    a->rebaseDelta = b.delta;
  }
  for (const MemoryRegion& m : plan.regions) {
    LaunchArg x;
    x.name = m.name;
    x.kind = "memory";
    x.dtype = "u8";
    x.shape = {std::int64_t(m.bytes())};
    x.dataPtr = m.start;
    x.allocationBase = m.allocation.base;
    x.allocationSize = m.allocation.size;
    r.memory.push_back(std::move(x));
  }
  r.notes.insert(r.notes.end(), plan.notes.begin(), plan.notes.end());
}

/// Widens each pointer's saved window to the bytes before it (leadBytesFor),
/// within --max-bytes, so that the replay keeps the pointer's alignment modulo
/// 256 and the legal bytes before it. Its dtype stays where the lead is whole
/// elements; else the window is bytes.
void addLeads(LaunchRecord& r, std::uint64_t maxBytes) {
  for (LaunchArg& a : r.args) {
    if (a.kind != "pointer" || !a.rebasedOnto.empty()) continue;
    const std::uint64_t reach = a.allocationBase + a.allocationSize - a.dataPtr;
    if (reach >= maxBytes) continue;
    a.leadBytes = leadBytesFor(a.dataPtr, a.allocationBase, std::min(kMaxLeadBytes, maxBytes - reach));
    if (a.leadBytes == 0) continue;
    if (a.leadBytes % dtypeSize(a.dtype) != 0) a.dtype = "u8";
    a.shape = {std::int64_t((a.leadBytes + reach) / dtypeSize(a.dtype))};
    if (a.dataPtr % 16 != 0)
      r.notes.push_back(a.name + " points " + std::to_string(a.dataPtr % 256) +
                        " bytes past a 256-byte boundary (" + hexAddress(a.dataPtr) +
                        "): the replay places it the same way");
  }
}

}  // namespace

void Recorder::launchEnter(const LaunchCall& c) {
  const std::int64_t index = m_index.fetch_add(1);
  t_driverSeen = true;
  if (t_claimed != 0 && t_claimed == reinterpret_cast<std::uint64_t>(c.f)) {
    t_claimed = 0;  // the Triton recorder records this one
    return;
  }
  t_claimed = 0;
  CUfunction fn = nullptr;
  std::string symbol;
  if (!functionOf(c.f, &fn, &symbol)) return;
  // A launch into a CUDA graph being captured does not run now, and a
  // synchronisation here would invalidate the program's capture.
  CUstreamCaptureStatus capturing = CU_STREAM_CAPTURE_STATUS_NONE;
  const CUstream stream = c.perThreadStream && !c.stream ? CU_STREAM_PER_THREAD : c.stream;
  if (cuStreamIsCapturing(stream, &capturing) == CUDA_SUCCESS && capturing != CU_STREAM_CAPTURE_STATUS_NONE) {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (m_runtimeNoted.insert("graph " + symbol).second)
      note("launches of " + symbol +
           " into a CUDA graph being captured are not recorded: they run when the graph is launched "
           "(cuGraphLaunch), where no launch callback sees their parameters");
    return;
  }
  auto p = std::make_unique<Pending>();
  LaunchRecord& r = p->record;
  r.recorder = "cuda";
  r.language = "cuda";
  r.pid = int(::getpid());
  r.index = index;
  r.symbol = symbol;
  const std::string demangled = demangleSymbol(symbol);
  r.kernel = demangled.empty() ? symbol : kernelShortName(demangled);
  for (int d = 0; d < 3; ++d) r.grid[d] = c.grid[d], r.block[d] = c.block[d], r.cluster[d] = c.cluster[d];
  r.sharedBytes = c.sharedBytes;
  std::vector<ByteParam> structs;
  const std::string key = resolveParams(c, fn, r, &structs);
  std::unique_lock<std::mutex> lock(m_mutex);
  if (!m_selector->select(symbol, demangled, key)) return;
  writeEnvironment();
  char id[64];
  std::snprintf(id, sizeof id, "c%d-%04lld", r.pid, static_cast<long long>(m_seq++));
  r.id = id;
  r.timeUnixNs = std::chrono::duration_cast<std::chrono::nanoseconds>(
                     std::chrono::system_clock::now().time_since_epoch())
                     .count();
  r.image = imageFor(symbol, fn, c.block[0] * c.block[1] * c.block[2], &r.notes);
  if (r.image.empty()) r.notes.push_back("no loaded module image holds " + symbol);
  lock.unlock();

  p->tmp = m_dir / "launches" / (".tmp-" + r.id);
  std::error_code ec;
  fs::create_directories(p->tmp, ec);
  // Struct pointers, and top-level pointers sharing an allocation (re-based onto one tensor).
  recordStructPointers(r, structs, p->tmp);
  addLeads(r, m_selector->selection().maxBytes);
  // The inputs are what the stream would give the kernel: everything before it.
  if (CUresult s = cuCtxSynchronize(); s != CUDA_SUCCESS) {
    r.notes.push_back("the context was already broken before the launch (" + errorName(s) +
                      "): no bytes saved");
  } else {
    for (std::size_t i = 0; i < r.args.size(); ++i)
      if (r.args[i].kind == "pointer" && r.args[i].rebasedOnto.empty()) saveBefore(*p, false, i);
    for (std::size_t i = 0; i < r.memory.size(); ++i) saveBefore(*p, true, i);
  }
  p->stream = stream;
  if (cuEventCreate(&p->start, CU_EVENT_DEFAULT) == CUDA_SUCCESS) cuEventRecord(p->start, p->stream);
  s_pending = std::move(p);
}

void Recorder::saveBefore(Pending& p, bool memory, std::size_t index) {
  LaunchRecord& r = p.record;
  LaunchArg& a = memory ? r.memory[index] : r.args[index];
  // The window saved: from leadBytes before the pointer to its allocation's end.
  const std::size_t reach = std::size_t(a.allocationBase + a.allocationSize - a.dataPtr + a.leadBytes);
  if (reach > m_selector->selection().maxBytes) {
    r.skipped.push_back({a.name, std::to_string(reach) + " bytes, above --max-bytes (" +
                                     std::to_string(m_selector->selection().maxBytes) + "): not saved"});
    return;
  }
  PointerArg pa;
  pa.arg = index;
  pa.memory = memory;
  pa.ptr = CUdeviceptr(a.dataPtr - a.leadBytes);
  pa.bytes = reach;
  pa.before.resize(reach);
  if (CUresult s = cuMemcpyDtoH(pa.before.data(), pa.ptr, reach); s != CUDA_SUCCESS) {
    r.skipped.push_back({a.name, "copying its bytes failed (" + errorName(s) + ")"});
    return;
  }
  try {
    a.before = a.name + ".before.npy";
    writeNpy(p.tmp / a.before, dtypeOf(a.dtype), a.shape, pa.before.data(), reach);
  } catch (const std::exception& e) {
    a.before.clear();
    r.skipped.push_back({a.name, e.what()});
    return;
  }
  p.pointers.push_back(std::move(pa));
}

void Recorder::launchExit(CUresult result) {
  std::unique_ptr<Pending> p = std::move(s_pending);
  if (!p) return;
  finishLaunch(*p, result);
}

void Recorder::finishLaunch(Pending& p, CUresult launchResult) {
  LaunchRecord& r = p.record;
  if (p.start && cuEventCreate(&p.end, CU_EVENT_DEFAULT) == CUDA_SUCCESS) cuEventRecord(p.end, p.stream);
  const CUresult done = cuCtxSynchronize();
  if (launchResult != CUDA_SUCCESS) {
    r.fault = errorName(launchResult);
    r.notes.push_back("the launch failed in the program: " + r.fault);
  } else if (done != CUDA_SUCCESS) {
    // A sticky error: the context is lost, nothing can be read back. The
    // inputs are saved: the replay under TileScope shows where it faulted.
    r.fault = errorName(done);
    r.notes.push_back("the kernel faulted in the program: " + r.fault);
  } else {
    float ms = 0;
    if (p.start && p.end && cuEventElapsedTime(&ms, p.start, p.end) == CUDA_SUCCESS)
      r.kernelNs = double(ms) * 1e6;
    std::vector<std::uint8_t> after;
    for (PointerArg& pa : p.pointers) {
      LaunchArg& a = pa.memory ? r.memory[pa.arg] : r.args[pa.arg];
      after.resize(pa.bytes);
      if (cuMemcpyDtoH(after.data(), pa.ptr, pa.bytes) != CUDA_SUCCESS) continue;
      a.changed = std::memcmp(after.data(), pa.before.data(), pa.bytes) != 0;
      if (!a.changed) continue;
      try {
        a.after = a.name + ".after.npy";
        writeNpy(p.tmp / a.after, dtypeOf(a.dtype), a.shape, after.data(), pa.bytes);
      } catch (const std::exception& e) {
        a.after.clear();
        r.notes.push_back(a.name + ": its bytes after the launch were not saved: " + e.what());
      }
    }
  }
  if (p.start) cuEventDestroy(p.start);
  if (p.end) cuEventDestroy(p.end);
  try {
    writeFileAtomically(p.tmp / "launch.json", dumpJson(toJson(r), 1) + "\n");
    std::error_code ec;
    fs::rename(p.tmp, m_dir / "launches" / r.id, ec);
    if (ec) throw std::runtime_error(ec.message());
  } catch (const std::exception& e) {
    note("launch " + r.id + " was not written: " + e.what());
    return;
  }
  std::lock_guard<std::mutex> lock(m_mutex);
  ++m_recorded;
  nlohmann::json ev = {{"event", "launch"},  {"recorder", "cuda"}, {"id", r.id},
                       {"kernel", r.kernel}, {"index", r.index},   {"grid", r.grid}};
  if (!r.fault.empty()) ev["fault"] = r.fault;
  event(dumpJson(ev));
}

void Recorder::finish() {
  if (!m_enabled) return;
  std::lock_guard<std::mutex> lock(m_mutex);
  nlohmann::json ev = {{"event", "summary"},
                       {"recorder", "cuda"},
                       {"pid", int(::getpid())},
                       {"launches", m_index.load()},
                       {"recorded", m_recorded}};
  event(dumpJson(ev));
}

}  // namespace tilescope::inject
