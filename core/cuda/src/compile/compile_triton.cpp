// compileTriton: a Triton kernel compiled by the Python helper (no GPU needed),
// cached like CUDA cubins, with the launch metadata Triton decides.
#include <chrono>
#include <fstream>
#include <sstream>

#include "compile/compile_detail.h"
#include "tilescope/base/python.h"
#include "tilescope/base/regex.h"
#include "tilescope/cuda/compile.h"

namespace tilescope::cuda {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const char* tritonDtype(DType t) {
  switch (t) {
    case DType::f32:
      return "fp32";
    case DType::f16:
      return "fp16";
    case DType::bf16:
      return "bf16";
    case DType::f64:
      return "fp64";
    case DType::i32:
      return "i32";
    case DType::i64:
      return "i64";
    case DType::u8:
      return "u8";
    case DType::i8:
      return "i8";
  }
  return "fp32";
}

int smNumber(const std::string& arch) {
  auto pos = arch.find_first_of("0123456789");
  return pos == std::string::npos ? 0 : std::atoi(arch.c_str() + pos);
}

/// Texts of the .py modules beside the source that it imports (`import x`, `from x import`):
/// a helper @triton.jit function there changes the kernel too.
std::vector<std::string> siblingModules(const fs::path& source) {
  static const Regex imp(R"(^\s*(?:from\s+\.?(\w+)\s+import|import\s+(\w+)))");
  std::vector<std::string> out;
  std::istringstream in(detail::readText(source));
  std::string line;
  while (std::getline(in, line)) {
    RegexMatch m;
    if (!imp.search(line, m)) continue;
    const std::string name = m.matched(1) ? m.str(1) : m.str(2);
    fs::path sibling = source.parent_path() / (name + ".py");
    std::error_code ec;
    if (fs::is_regular_file(sibling, ec)) out.push_back(name + "\n" + detail::readText(sibling));
  }
  return out;
}

CompileInfo failed(CompileInfo info, const std::string& log) {
  info.ok = false;
  info.log = log;
  return info;
}

/// The log of a compile error: a first line that firstCompileError reads
/// ("FILE.py:LINE:COL: error: MESSAGE"), the offending line, then Triton's text.
std::string errorLog(const json& r, const fs::path& source) {
  const std::string message = r.value("message", std::string("compilation failed"));
  const int line = r.value("line", 0), col = r.value("column", 0);
  std::string log;
  if (line > 0)
    log = source.string() + ":" + std::to_string(line) + ":" + std::to_string(std::max(col, 1)) +
          ": error: " + message + "\n    " + r.value("source_line", std::string()) + "\n";
  else
    log = "error: " + message + "\n";
  return log + "\n" + r.value("log", std::string());
}

/// Registers, shared memory and stack from the cubin; spills from ptxas -v.
void fillTritonResources(const CompiledKernel& ck, int sm, CompileInfo* info) {
  const TritonKernelMeta& m = *ck.triton;
  // Newer Triton runs its Blackwell ptxas ("ptxas-blackwell info : ...") for every target.
  static const Regex blackwell("ptxas-blackwell");
  parsePtxasResources(blackwell.replaceAll(m.ptxasLog, "ptxas"), m.name, info);
  CubinInfo ci = inspectCubin(ck.image, sm);
  if (const CubinKernelInfo* ki = ci.valid ? ci.find(m.name) : nullptr) {
    if (ki->regs >= 0) info->regs = ki->regs;
    if (ki->smemStatic >= 0) info->smemStatic = ki->smemStatic;
    if (ki->frameBytes >= 0) info->localBytes = ki->frameBytes;
    if (ki->maxThreads > 0) info->maxThreadsPerBlock = ki->maxThreads;
  }
}

}  // namespace

json TritonKernelMeta::toJson() const {
  json sig = json::array();
  for (const auto& p : signature) {
    json e{{"name", p.name}, {"type", p.type}};
    if (p.type == "constexpr") e["value"] = p.value;
    if (p.divisible16) e["divisible16"] = true;
    if (p.specialized) e["specialized"] = true;
    sig.push_back(e);
  }
  return {{"name", name},
          {"triton_version", tritonVersion},
          {kNumWarps, numWarps},
          {kNumStages, numStages},
          {kNumCtas, numCtas},
          {"cluster_dims", {clusterDims[0], clusterDims[1], clusterDims[2]}},
          {"shared", sharedBytes},
          {"global_scratch_size", globalScratchSize},
          {"global_scratch_align", globalScratchAlign},
          {"profile_scratch_size", profileScratchSize},
          {"profile_scratch_align", profileScratchAlign},
          {"scratch_params", scratchParams},
          {"ptx_params", ptxParamBytes},
          {"launch_cooperative_grid", cooperative},
          {"launch_pdl", pdl},
          {"signature", sig},
          {"def_line", defLine}};
}

TritonKernelMeta TritonKernelMeta::fromJson(const json& j) {
  TritonKernelMeta m;
  m.name = j.value("name", std::string());
  m.tritonVersion = j.value("triton_version", std::string());
  m.numWarps = j.value(kNumWarps, 4);
  m.numStages = j.value(kNumStages, 3);
  m.numCtas = j.value(kNumCtas, 1);
  if (j.contains("cluster_dims") && j["cluster_dims"].is_array())
    for (std::size_t i = 0; i < 3 && i < j["cluster_dims"].size(); ++i)
      m.clusterDims[i] = j["cluster_dims"][i].get<int>();
  m.sharedBytes = j.value("shared", std::int64_t{0});
  m.globalScratchSize = j.value("global_scratch_size", std::int64_t{0});
  m.globalScratchAlign = std::max<std::int64_t>(j.value("global_scratch_align", std::int64_t{1}), 1);
  m.profileScratchSize = j.value("profile_scratch_size", std::int64_t{0});
  m.profileScratchAlign = std::max<std::int64_t>(j.value("profile_scratch_align", std::int64_t{1}), 1);
  m.scratchParams = j.value("scratch_params", 0);
  for (const auto& b : j.value("ptx_params", json::array())) m.ptxParamBytes.push_back(b.get<int>());
  m.cooperative = j.value("launch_cooperative_grid", false);
  m.pdl = j.value("launch_pdl", false);
  for (const auto& e : j.value("signature", json::array()))
    m.signature.push_back({e.value("name", std::string()), e.value("type", std::string()),
                           e.value("divisible16", false), e.value("value", json()),
                           e.value("specialized", false)});
  m.defLine = j.value("def_line", 0);
  m.ptxasLog = j.value("ptxas_log", std::string());
  return m;
}

json tritonRequest(const Config& point, int sm, bool alignedPointers) {
  const auto symbols = pointSymbols(point);
  json args = json::array();
  for (std::size_t i = 0; i < point.args.size(); ++i) {
    const ArgSpec& a = point.args[i];
    if (a.isTensor) {
      const TensorSpec* t = point.tensor(a.tensor);
      args.push_back({{"kind", "pointer"},
                      {"dtype", tritonDtype(t ? t->dtype : DType::f32)},
                      {"aligned", alignedPointers}});
      continue;
    }
    ResolvedScalarArg v = resolveScalarArg(a, symbols, "args[" + std::to_string(i) + "]");
    if (v.type == ScalarType::f32 || v.type == ScalarType::f64)
      args.push_back({{"kind", "float"}, {"type", v.type == ScalarType::f32 ? "fp32" : "fp64"}});
    else
      args.push_back({{"kind", "int"}, {"value", v.i}});
  }
  json constexprs = json::object();
  for (const auto& [name, v] : point.kernel.defines) constexprs[name] = v.toJson();
  return {{"source", fs::absolute(point.kernel.sourcePath).lexically_normal().string()},
          {"entry", point.kernel.entry},
          {"arch", sm},
          {"args", args},
          {"constexprs", constexprs},
          {"options",
           {{kNumWarps, point.kernel.numWarps},
            {kNumStages, point.kernel.numStages},
            {kNumCtas, point.kernel.numCtas}}}};
}

CompileInfo compileTriton(const Config& point, const std::string& arch, bool alignedPointers,
                          CompiledKernel* out) {
  const auto t0 = std::chrono::steady_clock::now();
  CompileInfo info;
  info.attempted = true;
  info.arch = arch;
  info.compiler = "triton";
  const KernelSpec& k = point.kernel;
  const int sm = smNumber(arch);
  auto done = [&](CompileInfo i) {
    i.log = detail::capCompileLog(std::move(i.log));  // what the kernel file printed counts too
    i.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return i;
  };
  if (!fs::is_regular_file(k.sourcePath))
    return done(failed(info, "error: kernel source not found: " + k.sourcePath.string()));
  const fs::path helper = tritonHelperScript();
  if (!fs::is_regular_file(helper))
    return done(failed(info, "error: the Triton helper is missing: " + helper.string()));
  const std::string version = pythonPackageVersion("triton");
  if (version.empty())
    return done(
        failed(info, "error: Triton is not installed for " + pythonInterpreter() +
                         " (pip install triton, or set TILESCOPE_PYTHON to an interpreter that has it)"));
  info.compiler = "triton " + version;

  json request;
  try {
    request = tritonRequest(point, sm, alignedPointers);
  } catch (const ConfigError& e) {
    return done(failed(info, std::string("error: ") + e.what()));
  }
  std::vector<std::string> parts{"triton", version, pythonInterpreter(), detail::readText(helper),
                                 request.dump()};
  for (auto& m : siblingModules(k.sourcePath)) parts.push_back(std::move(m));
  const std::string key = detail::cacheBaseKey(parts, k.sourcePath);

  CompiledKernel ck;
  ck.entry = k.entry;
  std::string resultText;
  if (detail::cacheLoad(key, &ck.image, &resultText)) {
    info.cached = true;
  } else {
    detail::TempDir tmp;
    const fs::path req = tmp.path / "request.json";
    {
      std::ofstream f(req);
      f << request.dump(1);
    }
    // The kernel file runs inside the helper: confined unless the user consented (sandbox.h).
    PythonResult r =
        runKernelHelper({helper.string(), "compile", req.string(), tmp.path.string()}, pythonCompileTimeout(),
                        fs::absolute(k.sourcePath).parent_path(), tmp.path);
    // A helper stopped at a limit may have written a result on its way down: not used.
    if (!r.outputCut && !r.timedOut) resultText = detail::readText(tmp.path / "result.json");
    if (resultText.empty()) {
      // No result: the interpreter did not start, the compiler crashed (an MLIR
      // assertion aborts the process) or hung. Its stderr says why.
      // Not started: r.err says why (no sandbox here, no interpreter) and what would fix it.
      if (!r.started) return done(failed(info, "error: " + r.err));
      std::string why = r.timedOut ? "the Triton compiler did not finish within " +
                                         std::to_string(static_cast<int>(pythonCompileTimeout())) + " s"
                                   : "the Triton compiler helper failed (" + r.describe() + ")";
      return done(failed(info, "error: " + why + "\n" + r.err));
    }
    json res = json::parse(resultText, nullptr, false);
    if (res.is_object() && res.value("ok", false)) {
      detail::readFile(tmp.path / "kernel.cubin", &ck.image);
      if (!ck.image.empty()) detail::cacheStore(key, {}, ck.image, resultText);  // imports are in the key
    }
  }
  json res = json::parse(resultText, nullptr, false);
  if (!res.is_object()) return done(failed(info, "error: the Triton helper wrote an unreadable result"));
  if (!res.value("ok", false)) return done(failed(info, errorLog(res, k.sourcePath)));
  if (ck.image.empty()) return done(failed(info, "error: Triton produced no cubin"));

  ck.triton = TritonKernelMeta::fromJson(res);
  ck.format = CompiledKernel::Format::cubin;
  ck.loweredName = ck.triton->name;
  ck.kernels = {ck.triton->name};
  info.ok = true;
  info.log = ck.triton->ptxasLog;
  if (const std::string note = res.value("note", std::string()); !note.empty()) info.log += note + "\n";
  fillTritonResources(ck, sm, &info);
  if (out) *out = std::move(ck);
  return done(info);
}

CompileInfo compilePoint(const Config& point, const std::string& arch, bool alignedPointers,
                         CompiledKernel* out) {
  if (point.kernel.isTriton()) return compileTriton(point, arch, alignedPointers, out);
  if (point.kernel.language == "tilelang") return compileTileLang(point, arch, out);
  return compileKernel(point.kernel, point.kernel.defines, arch, out);
}

}  // namespace tilescope::cuda
