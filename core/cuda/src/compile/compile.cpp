// compileKernel: NVRTC / nvcc / ptxas / prebuilt images, cached, with resource usage.
#include <nvrtc.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "compile/compile_detail.h"
#include "compile/nvcc_command.h"
#include "tilescope/base/python.h"
#include "tilescope/config/includes.h"
#include "tilescope/cuda/compile.h"

namespace tilescope::cuda {
namespace {

namespace fs = std::filesystem;

std::string lowerExt(const fs::path& p) {
  std::string e = p.extension().string();
  for (auto& c : e) c = char(std::tolower(static_cast<unsigned char>(c)));
  return e;
}

std::vector<std::string> defineFlags(const std::vector<std::pair<std::string, DefineValue>>& defines) {
  std::vector<std::string> flags;
  for (const auto& [name, value] : defines) flags.push_back("-D" + name + "=" + value.flagText());
  return flags;
}

// An entry that is not a plain identifier ("gemm<64>", "ns::k") is resolved by
// NVRTC itself through a name expression.
bool needsNameExpression(const std::string& entry) { return entry.find_first_of("<:(") != std::string::npos; }

/// Whether a .cu source includes TileLang's headers (TileLang's generated CUDA).
bool usesTileLangHeaders(const fs::path& source) {
  return detail::readText(source).find("tl_templates/") != std::string::npos;
}

int smNumber(const std::string& arch) {
  auto pos = arch.find_first_of("0123456789");
  return pos == std::string::npos ? 0 : std::atoi(arch.c_str() + pos);
}

/// The prerequisites of a Makefile rule as nvcc -MD writes it ("out: a.cu b.h \\").
std::vector<std::string> parseMakeDeps(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  bool afterColon = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\' && i + 1 < text.size() && (text[i + 1] == '\n' || text[i + 1] == '\r')) {
      ++i;
      continue;
    }
    if (c == '\\' && i + 1 < text.size() && text[i + 1] == ' ') {
      cur += ' ';
      ++i;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (!cur.empty() && afterColon) out.push_back(cur);
      cur.clear();
      continue;
    }
    if (c == ':' && !afterColon && (i + 1 >= text.size() || text[i + 1] == ' ' || text[i + 1] == '\n')) {
      afterColon = true;
      cur.clear();
      continue;
    }
    cur += c;
  }
  if (!cur.empty() && afterColon) out.push_back(cur);
  return out;
}

struct Build {
  bool ok = false;
  std::vector<char> image;
  std::string log;
  std::string lowered;
};

/// The log with the source's full path shortened to its file name, as NVRTC
/// would print it for a program named by its file name alone.
std::string shortenSourcePath(std::string log, const std::string& full, const std::string& name) {
  if (full.empty()) return log;
  for (std::size_t at = 0; (at = log.find(full, at)) != std::string::npos; at += name.size())
    log.replace(at, full.size(), name);
  return log;
}

/// NVRTC's cubin, or with `ptx` its PTX (the flags then name a compute_XX architecture).
Build buildNvrtc(const KernelSpec& k, const std::vector<std::string>& flags, const std::string& source,
                 bool ptx = false) {
  Build b;
  nvrtcProgram prog = nullptr;
  // The program is named by its absolute path: NVRTC then looks for "quoted"
  // includes next to the source, as the include scan does, and not in whatever
  // folder TileScope happens to run in.
  const std::string full = fs::absolute(k.sourcePath).lexically_normal().string();
  if (nvrtcCreateProgram(&prog, source.c_str(), full.c_str(), 0, nullptr, nullptr) != NVRTC_SUCCESS) {
    b.log = "error: nvrtcCreateProgram failed for " + k.sourcePath.string();
    return b;
  }
  bool nameExpr = needsNameExpression(k.entry);
  if (nameExpr) nvrtcAddNameExpression(prog, k.entry.c_str());
  std::vector<const char*> argv;
  for (const auto& f : flags) argv.push_back(f.c_str());
  nvrtcResult rc = nvrtcCompileProgram(prog, int(argv.size()), argv.data());
  std::size_t logSize = 0;
  nvrtcGetProgramLogSize(prog, &logSize);
  b.log.resize(logSize);
  if (logSize) nvrtcGetProgramLog(prog, b.log.data());
  while (!b.log.empty() && b.log.back() == '\0') b.log.pop_back();
  b.log = shortenSourcePath(detail::capCompileLog(std::move(b.log)), full, k.sourcePath.filename().string());
  if (rc == NVRTC_SUCCESS) {
    std::size_t size = 0;
    (ptx ? nvrtcGetPTXSize : nvrtcGetCUBINSize)(prog, &size);
    b.image.resize(size);
    if (size) (ptx ? nvrtcGetPTX : nvrtcGetCUBIN)(prog, b.image.data());
    if (size == 0) b.log += "\nerror: NVRTC produced no cubin (is -arch a real sm_XX architecture?)";
    const char* lowered = nullptr;
    if (nameExpr && nvrtcGetLoweredName(prog, k.entry.c_str(), &lowered) == NVRTC_SUCCESS && lowered)
      b.lowered = lowered;
    b.ok = size > 0;
  } else if (b.log.empty()) {
    b.log = std::string("error: ") + nvrtcGetErrorString(rc);
  }
  nvrtcDestroyProgram(&prog);
  return b;
}

/// Runs nvcc or ptxas into a private temporary folder. With `deps`, nvcc also
/// writes the headers it read (-MD -MF), returned in *deps.
Build buildTool(const std::vector<std::string>& argvHead, const std::string& input,
                std::vector<std::string>* deps) {
  Build b;
  detail::TempDir tmp;
  if (tmp.path.empty()) {
    b.log = "error: could not create a private temporary folder";
    return b;
  }
  auto outPath = (tmp.path / "kernel.cubin").string();
  auto depPath = (tmp.path / "kernel.d").string();
  std::vector<std::string> argv = argvHead;
  if (deps) argv.insert(argv.end(), {"-MD", "-MF", depPath});
  argv.insert(argv.end(), {"-o", outPath, input});
  int rc = detail::runProcess(argv, &b.log);
  b.ok = rc == 0 && detail::readFile(outPath, &b.image) && !b.image.empty();
  if (rc == -1) b.log = "error: " + b.log;
  if (deps && b.ok) *deps = parseMakeDeps(detail::readText(depPath));
  return b;
}

/// nvcc with none of the config's text on its command line (nvcc_command.h):
/// nvcc hands its arguments to /bin/sh. The log and the headers read name the
/// real files again.
Build buildNvcc(const KernelSpec& k, const std::vector<std::pair<std::string, DefineValue>>& defines,
                const std::string& arch, const std::vector<std::string>& options,
                const std::vector<std::string>& includeDirs, std::vector<std::string>* deps,
                bool ptx = false) {
  Build b;
  detail::TempDir tmp;
  if (tmp.path.empty()) {
    b.log = "error: could not create a private temporary folder";
    return b;
  }
  const std::string nvcc = detail::toolkitTool("nvcc");
  const detail::NvccPlan plan = detail::planNvcc(nvcc.empty() ? std::string("nvcc") : nvcc, arch,
                                                 k.sourcePath, defines, options, includeDirs, tmp.path);
  std::string why = plan.error.empty() ? detail::materialize(plan, tmp.path) : plan.error;
  if (!why.empty()) {
    b.log = "error: not compiled: " + why;
    return b;
  }
  const auto outPath = (tmp.path / "kernel.cubin").string(), depPath = (tmp.path / "kernel.d").string();
  std::vector<std::string> argv = plan.argv;
  if (ptx) std::replace(argv.begin(), argv.end(), std::string("-cubin"), std::string("-ptx"));
  argv.insert(argv.end(), {"-MD", "-MF", depPath, "-o", outPath, (tmp.path / "kernel.cu").string()});
  const int rc = detail::runProcess(argv, &b.log);
  b.ok = rc == 0 && detail::readFile(outPath, &b.image) && !b.image.empty();
  if (rc == -1) b.log = "error: " + b.log;
  const std::string shown = k.sourcePath.string();
  const std::string full = fs::absolute(k.sourcePath).lexically_normal().string();
  b.log = shortenSourcePath(detail::unmapPaths(b.log, plan, tmp.path, shown), full, shown);
  if (!b.ok) return b;
  const std::string inTmp = tmp.path.string() + "/";
  for (const auto& d : parseMakeDeps(detail::readText(depPath))) {
    std::string real = detail::unmapPaths(d, plan, tmp.path, full);
    if (real.rfind(inTmp, 0) != 0) deps->push_back(std::move(real));  // not the generated files
  }
  return b;
}

// Fills resource usage from the ptxas log (spills) and the cubin (authoritative
// for registers, shared memory and stack).
void fillResources(const CompiledKernel& ck, const std::string& symbol, int sm, CompileInfo* info) {
  parsePtxasResources(info->log, symbol, info);
  if (ck.format == CompiledKernel::Format::ptx) return;
  CubinInfo ci = inspectCubin(ck.image, sm);
  if (!ci.valid) return;
  if (const CubinKernelInfo* ki = ci.find(symbol)) {
    if (ki->regs >= 0) info->regs = ki->regs;
    if (ki->smemStatic >= 0) info->smemStatic = ki->smemStatic;
    if (ki->frameBytes >= 0) info->localBytes = ki->frameBytes;
    if (ki->maxThreads > 0) info->maxThreadsPerBlock = ki->maxThreads;
  }
}

void finishEntry(const KernelSpec& k, int sm, CompiledKernel* ck, CompileInfo* info) {
  if (ck->format == CompiledKernel::Format::ptx) {
    std::string text(ck->image.begin(), ck->image.end());
    bool found = text.find(".entry " + k.entry) != std::string::npos;
    ck->loweredName = found ? k.entry : "";
    if (!found) {
      info->ok = false;
      info->log += "\nerror: entry '" + k.entry + "' has no .entry directive in " + k.sourcePath.string();
    }
    return;
  }
  CubinInfo ci = inspectCubin(ck->image, sm);
  if (!ci.valid) {
    // A compressed fatbin cannot be read here; the driver resolves the entry at load.
    if (ck->loweredName.empty()) ck->loweredName = k.entry;
    info->log += "\nnote: resource usage unavailable without a GPU (" + ci.error + ")";
    return;
  }
  for (const auto& kern : ci.kernels) ck->kernels.push_back(kern.name);
  if (ck->loweredName.empty()) ck->loweredName = matchEntry(k.entry, ck->kernels);
  if (ck->loweredName.empty()) {
    std::string list;
    for (const auto& n : ck->kernels) list += (list.empty() ? "" : ", ") + n;
    info->ok = false;
    info->log += "\nerror: entry '" + k.entry + "' not found in " + k.sourcePath.filename().string() +
                 "; the module defines: " + (list.empty() ? "no kernels" : list);
  }
}

/// Where a source compile looks beyond the kernel's folder: the toolkit, and the
/// headers TileLang's generated CUDA includes (docs/triton.md, TileLang).
struct SourceContext {
  std::string root;    // the CUDA toolkit
  std::string srcDir;  // absolute: "-I" + "" would swallow the next flag
  std::vector<std::string> extraIncludes;
  bool tilelang = false;
};

/// A .cubin or .fatbin, used as it is.
void loadPrebuilt(const KernelSpec& k, const std::string& ext, const std::string& arch, int sm,
                  CompiledKernel* ck, CompileInfo* info) {
  info->compiler = "prebuilt";
  ck->format = ext == ".cubin" ? CompiledKernel::Format::cubin : CompiledKernel::Format::fatbin;
  info->ok = detail::readFile(k.sourcePath, &ck->image) && !ck->image.empty();
  if (!info->ok) info->log = "error: cannot read " + k.sourcePath.string();
  if (info->ok && ck->format == CompiledKernel::Format::cubin) {
    CubinInfo ci = inspectCubin(ck->image, sm);
    // A cubin runs only on its own major architecture, at an equal or newer minor.
    if (ci.valid && (ci.smVersion / 10 != sm / 10 || ci.smVersion % 10 > sm % 10))
      info->log += "warning: the cubin is for sm_" + std::to_string(ci.smVersion) + ", the target is " +
                   arch + ": the driver will refuse to load it\n";
  }
}

std::vector<std::string> nvrtcFlags(const std::string& arch, const SourceContext& s,
                                    const std::vector<std::pair<std::string, DefineValue>>& defines,
                                    const std::vector<std::string>& options) {
  std::vector<std::string> flags{"-arch=" + arch, "-I" + s.srcDir, "-I" + s.root + "/include"};
  if (arch.rfind("sm_", 0) == 0) flags.insert(flags.begin() + 1, "-Xptxas=-v");  // not for PTX
  flags.insert(flags.end(), s.extraIncludes.begin(), s.extraIncludes.end());
  const auto dflags = defineFlags(defines);
  flags.insert(flags.end(), dflags.begin(), dflags.end());
  flags.insert(flags.end(), options.begin(), options.end());
  return flags;
}

/// Runs the compiler `info->compiler` names over the source, recording what it
/// read in `deps`; `cacheable` turns false when that cannot be known (an
/// #include through a macro, a scan cut short).
Build runCompiler(const KernelSpec& k, const std::vector<std::pair<std::string, DefineValue>>& defines,
                  const std::string& arch, const SourceContext& s, const std::vector<std::string>& options,
                  const CompileInfo& info, CompiledKernel* ck, std::vector<std::string>* deps,
                  bool* cacheable) {
  Build b;
  if (info.compiler == "ptxas") {
    std::string ptxas = detail::toolkitTool("ptxas");
    if (ptxas.empty()) {
      // No ptxas: hand the PTX text to the driver, which JIT-compiles it at load.
      b.ok = detail::readFile(k.sourcePath, &b.image);
      b.image.push_back('\0');
      b.log = "note: ptxas not found under " + s.root + "/bin: the driver JIT-compiles the PTX at load";
      ck->format = CompiledKernel::Format::ptx;
    } else {
      std::vector<std::string> argv{ptxas, "-arch=" + arch, "-v"};
      argv.insert(argv.end(), options.begin(), options.end());
      b = buildTool(argv, k.sourcePath.string(), nullptr);
      deps->push_back(fs::absolute(k.sourcePath).lexically_normal().string());
    }
  } else if (info.compiler == "nvcc") {
    std::vector<std::string> dirs{s.srcDir};
    for (const auto& d : s.extraIncludes) dirs.push_back(d.substr(2));  // "-I" + folder
    b = buildNvcc(k, defines, arch, options, dirs, deps);               // nvcc names every header it read
    *cacheable = !deps->empty();
  } else {
    b = buildNvrtc(k, nvrtcFlags(arch, s, defines, options), detail::readText(k.sourcePath));
    ck->loweredName = b.lowered;
    // NVRTC reports no dependencies: the include scan finds every header it can read.
    const IncludeScan scan = scanIncludes(k.sourcePath, includeSearchFor(k, s.root));
    for (const auto& f : scan.files) deps->push_back(f.string());
    for (const auto& e : scan.edges) *cacheable = *cacheable && !e.computed;
    *cacheable = *cacheable && !scan.truncated;
  }
  return b;
}

/// .cu through NVRTC or nvcc; .ptx through ptxas (or the driver's JIT at load),
/// from the compile cache when the same inputs were compiled before.
void compileSource(const KernelSpec& k, const std::vector<std::pair<std::string, DefineValue>>& defines,
                   const std::string& ext, const std::string& arch, const SourceContext& s,
                   CompiledKernel* ck, CompileInfo* info) {
  const bool ptx = ext == ".ptx";
  info->compiler = ptx ? "ptxas" : (k.compiler == "nvcc" ? "nvcc" : "nvrtc");
  int vmaj = 0, vmin = 0;
  nvrtcVersion(&vmaj, &vmin);
  // Relative include paths resolve against the config's folder, not the working directory.
  const std::vector<std::string> options = absoluteIncludeOptions(k);
  std::vector<std::string> keyParts{info->compiler, std::to_string(vmaj) + "." + std::to_string(vmin), arch,
                                    k.entry};
  const auto dflags = defineFlags(defines);
  keyParts.insert(keyParts.end(), dflags.begin(), dflags.end());
  keyParts.insert(keyParts.end(), options.begin(), options.end());
  keyParts.insert(keyParts.end(), s.extraIncludes.begin(), s.extraIncludes.end());
  const std::string key = detail::cacheBaseKey(keyParts, k.sourcePath);
  std::vector<std::string> deps;  // what the compile read, for the cache manifest
  bool cacheable = true;
  Build b;
  if (detail::cacheLoad(key, &b.image, &b.log)) {
    b.ok = true;
    info->cached = true;  // the lowered name is not stored: finishEntry recovers it from the image
  } else {
    b = runCompiler(k, defines, arch, s, options, *info, ck, &deps, &cacheable);
  }
  if (b.ok && !info->cached && cacheable && ck->format == CompiledKernel::Format::cubin)
    detail::cacheStore(key, deps, b.image, b.log);
  info->ok = b.ok;
  info->log = b.log;
  ck->image = std::move(b.image);
  if (!b.ok && info->log.find("error") == std::string::npos) info->log += "\nerror: compilation failed";
  if (!b.ok && s.tilelang && s.extraIncludes.empty())
    info->log += "\nnote: " + k.source +
                 " is TileLang's generated CUDA and includes TileLang's headers "
                 "(tl_templates/...), found in none of $TILESCOPE_TILELANG_HOME, the tilelang package of " +
                 pythonInterpreter() + " and build-deps/tilelang (scripts/install-deps.sh unpacks them)";
}

SourceContext sourceContext(const KernelSpec& k, const std::string& ext) {
  SourceContext s;
  s.root = cudaToolkitRoot();
  s.srcDir = fs::absolute(k.sourcePath).lexically_normal().parent_path().string();
  s.tilelang = ext == ".cu" && usesTileLangHeaders(k.sourcePath);
  if (s.tilelang)
    for (const auto& d : tilelangIncludeDirs()) s.extraIncludes.push_back("-I" + d);
  return s;
}

}  // namespace

CompileInfo compilePtx(const KernelSpec& k, const std::vector<std::pair<std::string, DefineValue>>& defines,
                       const std::string& arch, std::string* ptx) {
  CompileInfo info;
  info.attempted = true;
  info.arch = arch;
  info.compiler = k.compiler == "nvcc" ? "nvcc" : "nvrtc";
  const std::string ext = lowerExt(k.sourcePath);
  if (ext != ".cu" || !fs::is_regular_file(k.sourcePath)) {
    info.log = "error: PTX is compiled from a .cu source only";
    return info;
  }
  const SourceContext s = sourceContext(k, ext);
  const std::vector<std::string> options = absoluteIncludeOptions(k);
  Build b;
  if (info.compiler == "nvcc") {
    std::vector<std::string> dirs{s.srcDir}, deps;
    for (const auto& d : s.extraIncludes) dirs.push_back(d.substr(2));
    b = buildNvcc(k, defines, arch, options, dirs, &deps, true);
  } else {
    // compute_90a for sm_90a: the PTX of the architecture the cubin is for.
    const std::string virt = arch.rfind("sm_", 0) == 0 ? "compute_" + arch.substr(3) : arch;
    b = buildNvrtc(k, nvrtcFlags(virt, s, defines, options), detail::readText(k.sourcePath), true);
  }
  info.ok = b.ok;
  info.log = b.log;
  if (ptx && b.ok) {
    ptx->assign(b.image.begin(), b.image.end());
    while (!ptx->empty() && ptx->back() == '\0') ptx->pop_back();
  }
  return info;
}

CompileInfo compileKernel(const KernelSpec& k,
                          const std::vector<std::pair<std::string, DefineValue>>& defines,
                          const std::string& arch, CompiledKernel* out) {
  auto t0 = std::chrono::steady_clock::now();
  CompileInfo info;
  info.attempted = true;
  info.arch = arch;
  CompiledKernel ck;
  ck.entry = k.entry;
  const int sm = smNumber(arch);
  const std::string ext = lowerExt(k.sourcePath);
  const SourceContext s = sourceContext(k, ext);

  if (!fs::is_regular_file(k.sourcePath)) {
    info.compiler = k.compiler;
    info.log = "error: kernel source not found: " + k.sourcePath.string();
  } else if (ext == ".cubin" || ext == ".fatbin") {
    loadPrebuilt(k, ext, arch, sm, &ck, &info);
  } else {
    compileSource(k, defines, ext, arch, s, &ck, &info);
  }
  if (info.ok) {
    finishEntry(k, sm, &ck, &info);
    fillResources(ck, ck.loweredName.empty() ? k.entry : ck.loweredName, sm, &info);
  }
  info.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (out) *out = std::move(ck);
  return info;
}

}  // namespace tilescope::cuda
