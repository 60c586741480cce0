// SanitizerApi: libsanitizer-public.so through dlopen (see trace_sanitizer.h).
#include "trace/trace_sanitizer.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "tilescope/cuda/compile.h"
#include "tilescope/cuda/tracer.h"

#ifdef TILESCOPE_HAVE_SANITIZER
#include <sanitizer.h>

// The patch functions, compiled with --compile-as-tools-patch (trace_patches.cu)
// and embedded by CMake (trace_patches_blob.cpp).
extern "C" const unsigned char tilescope_trace_patches[];
extern "C" const unsigned long long tilescope_trace_patches_size;
#endif

namespace tilescope::cuda {
namespace detail {

#ifdef TILESCOPE_HAVE_SANITIZER

namespace {
void noCallback(void*, Sanitizer_CallbackDomain, Sanitizer_CallbackId, const void*) {}
}  // namespace

struct SanitizerApi::Fns {
  decltype(&sanitizerSubscribe) subscribe = nullptr;
  decltype(&sanitizerAddPatches) addPatches = nullptr;
  decltype(&sanitizerPatchInstructions) patchInstructions = nullptr;
  decltype(&sanitizerPatchModule) patchModule = nullptr;
  decltype(&sanitizerSetCallbackData) setCallbackData = nullptr;
  decltype(&sanitizerGetFunctionPcAndSize) functionPcAndSize = nullptr;
  decltype(&sanitizerGetResultString) resultString = nullptr;
  Sanitizer_SubscriberHandle subscriber = nullptr;
};

namespace {

std::vector<std::string> candidates() {
  std::vector<std::string> c;
  if (const char* env = std::getenv("TILESCOPE_SANITIZER_LIB"); env && *env) c.push_back(env);
  c.push_back("libsanitizer-public.so");
  const std::string root = cudaToolkitRoot();
  for (const char* sub :
       {"/compute-sanitizer/libsanitizer-public.so", "/extras/Sanitizer/libsanitizer-public.so",
        "/extras/Sanitizer/lib64/libsanitizer-public.so"})
    c.push_back(root + sub);
#ifdef TILESCOPE_SANITIZER_LIB_HINT
  c.push_back(TILESCOPE_SANITIZER_LIB_HINT "/libsanitizer-public.so");
#endif
  return c;
}

template <class F>
bool resolve(void* lib, const char* name, F* out) {
  *out = reinterpret_cast<F>(dlsym(lib, name));
  return *out != nullptr;
}

}  // namespace

SanitizerApi& SanitizerApi::instance() {
  static SanitizerApi api;
  return api;
}

const std::string& SanitizerApi::init() {
  if (m_tried) return m_error;
  m_tried = true;
  // Only one Sanitizer API subscriber may exist per process: under
  // compute-sanitizer (or another injected tool) the slot is taken.
  if (const char* inj = std::getenv("CUDA_INJECTION64_PATH"); inj && *inj) {
    m_error = std::string("another CUDA tool is attached (CUDA_INJECTION64_PATH=") + inj +
              "): the Sanitizer API allows one subscriber per process";
    return m_error;
  }
  void* lib = nullptr;
  std::string tried;
  for (const std::string& path : candidates()) {
    lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib) {
      m_path = path;
      break;
    }
    tried += (tried.empty() ? "" : ", ") + path;
  }
  if (!lib) {
    m_error = "libsanitizer-public.so not found (tried " + tried +
              "); set TILESCOPE_SANITIZER_LIB or install the toolkit's compute-sanitizer";
    return m_error;
  }
  m_fns = new Fns;
  Fns& f = *m_fns;
  if (!resolve(lib, "sanitizerSubscribe", &f.subscribe) ||
      !resolve(lib, "sanitizerAddPatches", &f.addPatches) ||
      !resolve(lib, "sanitizerPatchInstructions", &f.patchInstructions) ||
      !resolve(lib, "sanitizerPatchModule", &f.patchModule) ||
      !resolve(lib, "sanitizerSetCallbackData", &f.setCallbackData) ||
      !resolve(lib, "sanitizerGetFunctionPcAndSize", &f.functionPcAndSize) ||
      !resolve(lib, "sanitizerGetResultString", &f.resultString)) {
    m_error = m_path + " lacks the patching API (" + dlerror() + "): a toolkit older than the tracer needs";
    return m_error;
  }
  SanitizerResult r = f.subscribe(&f.subscriber, noCallback, nullptr);
  if (r != SANITIZER_SUCCESS) {
    const char* text = nullptr;
    f.resultString(r, &text);
    m_error =
        std::string("the Sanitizer API refused a subscriber (") + (text ? text : "error") +
        (r == SANITIZER_ERROR_MAX_LIMIT_REACHED ? "): another sanitizer is attached to this process" : ")");
    return m_error;
  }
  m_ready = true;
  return m_error;
}

namespace {
std::string describe(SanitizerApi::Fns* f, SanitizerResult r, const std::string& what) {
  if (r == SANITIZER_SUCCESS) return "";
  const char* text = nullptr;
  if (f->resultString) f->resultString(r, &text);
  return what + ": " + (text ? text : "error " + std::to_string(int(r)));
}
}  // namespace

std::string SanitizerApi::addPatches(CUcontext ctx) {
  if (!m_ready) return m_error.empty() ? "the Sanitizer API is not loaded" : m_error;
  if (m_patchedCtx == ctx) return "";
  std::string e = describe(m_fns, m_fns->addPatches(tilescope_trace_patches, ctx), "sanitizerAddPatches");
  if (e.empty()) m_patchedCtx = ctx;
  return e;
}

std::string SanitizerApi::patch(CUmodule module, PatchPoint point) {
  Sanitizer_InstructionId id = SANITIZER_INSTRUCTION_INVALID;
  const char* fn = "";
  switch (point) {
    case PatchPoint::globalAccess:
      id = SANITIZER_INSTRUCTION_GLOBAL_MEMORY_ACCESS, fn = "TsGlobalAccess";
      break;
    case PatchPoint::sharedAccess:
      id = SANITIZER_INSTRUCTION_SHARED_MEMORY_ACCESS, fn = "TsSharedAccess";
      break;
    case PatchPoint::localAccess:
      id = SANITIZER_INSTRUCTION_LOCAL_MEMORY_ACCESS, fn = "TsLocalAccess";
      break;
    case PatchPoint::barrier:
      id = SANITIZER_INSTRUCTION_BARRIER, fn = "TsBarrier";
      break;
    case PatchPoint::blockEnter:
      id = SANITIZER_INSTRUCTION_BLOCK_ENTER, fn = "TsBlockEnter";
      break;
    case PatchPoint::blockExit:
      id = SANITIZER_INSTRUCTION_BLOCK_EXIT, fn = "TsBlockExit";
      break;
    case PatchPoint::memcpyAsync:
      id = SANITIZER_INSTRUCTION_MEMCPY_ASYNC, fn = "TsMemcpyAsync";
      break;
    case PatchPoint::matrixAccess:
      id = SANITIZER_INSTRUCTION_MATRIX_MEMORY_ACCESS, fn = "TsMatrixAccess";
      break;
    case PatchPoint::bulkCopyGlobalToShared:
      id = SANITIZER_INSTRUCTION_BULK_COPY_GLOBAL_TO_SHARED, fn = "TsBulkCopyGlobalToShared";
      break;
    case PatchPoint::bulkCopySharedToGlobal:
      id = SANITIZER_INSTRUCTION_BULK_COPY_SHARED_TO_GLOBAL, fn = "TsBulkCopySharedToGlobal";
      break;
    case PatchPoint::cudaBarrier:
      id = SANITIZER_INSTRUCTION_CUDA_BARRIER, fn = "TsCudaBarrier";
      break;
    case PatchPoint::cudaBarrierAttempt:
      id = SANITIZER_INSTRUCTION_CUDA_BARRIER_ATTEMPT, fn = "TsCudaBarrierAttempt";
      break;
  }
  return describe(m_fns, m_fns->patchInstructions(id, module, fn),
                  std::string("sanitizerPatchInstructions(") + fn + ")");
}

std::string SanitizerApi::patchModule(CUmodule module) {
  return describe(m_fns, m_fns->patchModule(module), "sanitizerPatchModule");
}

std::string SanitizerApi::setCallbackData(CUfunction f, CUdeviceptr data) {
  return describe(m_fns, m_fns->setCallbackData(f, reinterpret_cast<const void*>(data)),
                  "sanitizerSetCallbackData");
}

bool SanitizerApi::functionPcAndSize(CUmodule module, const std::string& name, std::uint64_t* pc,
                                     std::uint64_t* size) {
  return m_ready && m_fns->functionPcAndSize(module, name.c_str(), pc, size) == SANITIZER_SUCCESS;
}

#else  // built without the Sanitizer API headers

struct SanitizerApi::Fns {};
SanitizerApi& SanitizerApi::instance() {
  static SanitizerApi api;
  return api;
}
const std::string& SanitizerApi::init() {
  m_tried = true;
  m_error =
      "this tilescope-run was built without the Sanitizer API headers (sanitizer.h): scripts/install-deps.sh "
      "unpacks them into build-deps/sanitizer";
  return m_error;
}
std::string SanitizerApi::addPatches(CUcontext) { return m_error; }
std::string SanitizerApi::patch(CUmodule, PatchPoint) { return m_error; }
std::string SanitizerApi::patchModule(CUmodule) { return m_error; }
std::string SanitizerApi::setCallbackData(CUfunction, CUdeviceptr) { return m_error; }
bool SanitizerApi::functionPcAndSize(CUmodule, const std::string&, std::uint64_t*, std::uint64_t*) {
  return false;
}

#endif

}  // namespace detail

std::string initTracer() { return detail::SanitizerApi::instance().init(); }
std::string tracerLibraryPath() { return detail::SanitizerApi::instance().libraryPath(); }

}  // namespace tilescope::cuda
