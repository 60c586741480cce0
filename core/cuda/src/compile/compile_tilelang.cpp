// compileTileLang: TileLang generates CUDA (through the Python helper), nvcc compiles it.
#include <chrono>
#include <fstream>

#include "compile/compile_detail.h"
#include "tilescope/base/python.h"
#include "tilescope/cuda/compile.h"

namespace tilescope::cuda {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

CompileInfo failed(CompileInfo info, const std::string& log) {
  info.ok = false;
  info.log = log;
  return info;
}

std::string triple(const std::int64_t v[3]) {
  return "[" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " + std::to_string(v[2]) + "]";
}

}  // namespace

json TileLangKernelMeta::toJson() const {
  return {{"name", name},
          {"tilelang_version", tilelangVersion},
          {"grid", {grid[0], grid[1], grid[2]}},
          {"block", {block[0], block[1], block[2]}},
          {"shared", sharedBytes},
          {"params", params},
          {"generated_source", generatedSource}};
}

CompileInfo compileTileLang(const Config& point, const std::string& arch, CompiledKernel* out) {
  const auto t0 = std::chrono::steady_clock::now();
  CompileInfo info;
  info.attempted = true;
  info.arch = arch;
  info.compiler = "tilelang";
  auto done = [&](CompileInfo i) {
    i.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return i;
  };
  const KernelSpec& k = point.kernel;
  const std::string version = pythonPackageVersion("tilelang");
  if (version.empty())
    return done(failed(info, "error: TileLang is not installed for " + pythonInterpreter() +
                                 " (pip install tilelang, or set TILESCOPE_PYTHON)"));
  const int sm = std::atoi(arch.c_str() + arch.find_first_of("0123456789"));
  json constexprs = json::object();
  for (const auto& [name, v] : k.defines) constexprs[name] = v.toJson();
  const json request{{"source", fs::absolute(k.sourcePath).lexically_normal().string()},
                     {"entry", k.entry},
                     {"arch", sm},
                     {"constexprs", constexprs}};
  const fs::path helper = tritonHelperScript();
  const std::string key = detail::cacheBaseKey(
      {"tilelang", version, pythonInterpreter(), detail::readText(helper), request.dump()}, k.sourcePath);
  // The generated CUDA lives in the compile cache: nvcc compiles it from there.
  std::string why;
  const fs::path cache = detail::cacheDir(&why);
  if (cache.empty())
    return done(failed(info, "error: TileLang's generated CUDA needs the compile cache: " + why));
  const fs::path generated = cache / (key + ".tilelang.cu");
  std::vector<char> unused;
  std::string resultText;
  if (!detail::cacheLoad(key, &unused, &resultText) || !fs::is_regular_file(generated)) {
    detail::TempDir tmp;
    {
      std::ofstream f(tmp.path / "request.json");
      f << request.dump(1);
    }
    PythonResult r = runKernelHelper(
        {helper.string(), "tilelang", (tmp.path / "request.json").string(), tmp.path.string()},
        pythonCompileTimeout(), fs::absolute(k.sourcePath).parent_path(), tmp.path);
    if (!r.outputCut && !r.timedOut) resultText = detail::readText(tmp.path / "result.json");
    if (resultText.empty())
      return done(failed(info, "error: TileLang's helper failed (" + r.describe() + ")\n" + r.err));
    json res = json::parse(resultText, nullptr, false);
    if (res.is_object() && res.value("ok", false)) {
      std::error_code ec;
      fs::copy_file(tmp.path / "kernel.cu", generated, fs::copy_options::overwrite_existing, ec);
      const std::string marker = "tilelang";
      detail::cacheStore(key, {}, std::vector<char>(marker.begin(), marker.end()), resultText);
    }
  }
  json res = json::parse(resultText, nullptr, false);
  if (!res.is_object()) return done(failed(info, "error: TileLang's helper wrote an unreadable result"));
  if (!res.value("ok", false))
    return done(failed(info, "error: " + res.value("message", std::string("TileLang failed")) + "\n\n" +
                                 res.value("log", std::string())));

  TileLangKernelMeta m;
  m.name = res.value("name", std::string("main_kernel"));
  m.tilelangVersion = res.value("tilelang_version", version);
  for (int d = 0; d < 3; ++d) {
    m.grid[d] = res["grid"][d].get<std::int64_t>();
    m.block[d] = res["block"][d].get<std::int64_t>();
  }
  m.sharedBytes = res.value("shared", std::int64_t{0});
  m.params = res.value("params", json::array());
  m.generatedSource = generated.string();
  // The config's grid is TileLang's: the tiles and the coverage are computed from it.
  ResolvedLaunch want = resolvePoint(point).launch;
  if (want.grid[0] != m.grid[0] || want.grid[1] != m.grid[1] || want.grid[2] != m.grid[2])
    return done(failed(info, "error: launch.grid: TileLang launches " + m.name + " with grid " +
                                 triple(m.grid) + ", the config says " + triple(want.grid)));

  KernelSpec cu;
  cu.source = generated.string();
  cu.sourcePath = generated;
  cu.entry = m.name;
  cu.compiler = "nvcc";
  cu.options = {"-std=c++17", "-O3", "-lineinfo"};
  // TileLang's Hopper code (wgmma) is for the architecture-specific sm_90a.
  CompiledKernel ck;
  info = compileKernel(cu, {}, sm >= 90 ? arch + "a" : arch, &ck);
  info.compiler = "tilelang " + m.tilelangVersion + " + " + info.compiler;
  info.arch = arch;
  if (info.ok) {
    ck.entry = k.entry;
    ck.tilelang = m;
    if (out) *out = std::move(ck);
  }
  return done(info);
}

}  // namespace tilescope::cuda
