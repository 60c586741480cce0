// collectStages: the kernel as the compiler sees it (compile.h). A compile of
// its own, apart from the point's: the stages need line information
// (-lineinfo), which the point's compile leaves off so that the code measured is
// the code users ship (it changes no instruction, but a cache entry of its own
// keeps the two apart), and Triton's IR is not in the compile cache.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "compile/compile_detail.h"
#include "tilescope/analysis/compiler_stages.h"
#include "tilescope/base/process.h"
#include "tilescope/base/python.h"
#include "tilescope/cuda/compile.h"

namespace tilescope::cuda {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

/// The most of nvdisasm's listing read: a kernel's SASS is a few MiB at most.
constexpr std::size_t kMaxListingBytes = std::size_t{64} << 20;

bool executable(const fs::path& p) {
  std::error_code ec;
  return !p.empty() && fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

/// nvdisasm of the interpreter's nvidia-cuda-nvdisasm package, then Triton's.
std::vector<std::string> pythonNvdisasms() {
  static const char* script =
      "import glob, importlib.util, os\n"
      "for name, pattern in (('nvidia', '*/bin/nvdisasm'), ('triton', 'backends/nvidia/bin/nvdisasm')):\n"
      "    try:\n"
      "        spec = importlib.util.find_spec(name)\n"
      "    except Exception:\n"
      "        continue\n"
      "    for d in (spec.submodule_search_locations or []) if spec else []:\n"
      "        for p in sorted(glob.glob(os.path.join(d, pattern)), reverse=True):\n"
      "            print(p)\n";
  const PythonResult r = runPython({"-c", script}, 30);
  std::vector<std::string> out;
  std::size_t at = 0;
  while (r.exitCode == 0 && at < r.out.size()) {
    const auto end = std::min(r.out.find('\n', at), r.out.size());
    if (end > at) out.push_back(r.out.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

std::string findNvdisasm(std::string* why) {
  if (const char* env = std::getenv("TILESCOPE_NVDISASM"); env && *env) {
    if (executable(env)) return env;
    *why = "$TILESCOPE_NVDISASM (" + std::string(env) + ") is not an executable";
    return {};
  }
  std::vector<std::string> candidates = pythonNvdisasms();
  const std::string triton = candidates.empty() || candidates.back().find("/triton/") == std::string::npos
                                 ? std::string()
                                 : candidates.back();
  if (!triton.empty()) candidates.pop_back();  // Triton's last: it may be older than the toolkit
  candidates.push_back((fs::path(cudaToolkitRoot()) / "bin" / "nvdisasm").string());
  if (const char* path = std::getenv("PATH"))
    for (std::string_view p(path); !p.empty();) {
      const auto colon = std::min(p.find(':'), p.size());
      if (colon > 0) candidates.push_back((fs::path(std::string(p.substr(0, colon))) / "nvdisasm").string());
      p.remove_prefix(std::min(colon + 1, p.size()));
    }
  if (!triton.empty()) candidates.push_back(triton);
  for (const auto& c : candidates)
    if (executable(c)) return c;
  *why = "nvdisasm not found: not in the nvidia-cuda-nvdisasm package of " + pythonInterpreter() + ", " +
         cudaToolkitRoot() +
         "/bin, PATH or Triton (scripts/install-deps.sh installs it; or set TILESCOPE_NVDISASM)";
  return {};
}

}  // namespace

std::string nvdisasmPath(std::string* why) {
  static const std::pair<std::string, std::string> found = [] {
    std::string reason;
    std::string path = findNvdisasm(&reason);
    return std::pair{path, reason};
  }();
  if (why) *why = found.second;
  return found.first;
}

namespace {

/// The SASS stage of a cubin, its instructions into *sass.
CompilerStage sassStage(const std::vector<char>& cubin, StagesInfo* info,
                        std::vector<SassInstruction>* sass) {
  std::string why;
  const std::string nvdisasm = nvdisasmPath(&why);
  if (nvdisasm.empty()) return absentStage("sass", why);
  info->disassembler = nvdisasm;
  detail::TempDir tmp;
  const fs::path file = tmp.path / "kernel.cubin";
  if (tmp.path.empty() || !detail::writeFile(file, cubin))
    return absentStage("sass", "could not write the cubin to a private temporary folder");
  std::string listing;
  // -g: a `//## File "...", line N` comment where the source line changes; -c: code only.
  const ChildResult r = runChild(
      {nvdisasm, "-g", "-c", file.string()}, 120, [&](const std::string& line) { listing += line + '\n'; },
      {}, {}, {}, kMaxListingBytes);
  if (!r.started || r.exitCode != 0 || r.outputCut) {
    std::string err = r.started ? r.stderrText.substr(0, 2000) : r.startError;
    return absentStage("sass", "nvdisasm failed (" + (r.timedOut ? std::string("timed out") : err) + ")");
  }
  *sass = parseNvdisasm(listing);
  if (!sass->empty() && std::none_of(sass->begin(), sass->end(), [](const auto& s) { return s.line > 0; }))
    info->note += "the cubin has no line information: SASS is not mapped to source lines. ";
  return makeStage("sass", std::move(listing), sassSpans(*sass), info->maxStageBytes);
}

/// The whole PTX (the stage may be clipped; the summary counts all of it).
struct FullPtx {
  std::string text;
  std::vector<StageSpan> spans;
};

void addPtx(StagesInfo* info, std::string text, FullPtx* full) {
  full->spans = ptxSpans(text);
  full->text = text;
  info->stages.push_back(makeStage("ptx", std::move(text), full->spans, info->maxStageBytes));
}

void finish(StagesInfo* info, const std::vector<SassInstruction>& sass, const FullPtx& ptx) {
  info->lines = summarizeLines(sass, ptx.text, ptx.spans);
  for (const auto& s : info->stages)
    if (s.clipped)
      info->note += s.name + " clipped to its first " + std::to_string(info->maxStageBytes / 1024) +
                    " KiB of " + std::to_string(s.bytes / 1024) + " KiB. ";
  while (!info->note.empty() && info->note.back() == ' ') info->note.pop_back();
}

const char* kNoTritonIr = "CUDA C++ is compiled to PTX directly: there is no Triton IR";

void cudaStages(const Config& point, const std::string& arch, StagesInfo* info) {
  KernelSpec k = point.kernel;
  if (std::find(k.options.begin(), k.options.end(), "-lineinfo") == k.options.end())
    k.options.push_back("-lineinfo");  // line info changes no instruction
  for (const char* ir : {"ttir", "ttgir", "llir"}) info->stages.push_back(absentStage(ir, kNoTritonIr));
  FullPtx ptx;
  std::string ext = k.sourcePath.extension().string();
  for (auto& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
  if (ext == ".ptx") {
    addPtx(info, detail::readText(k.sourcePath), &ptx);
  } else if (ext == ".cu") {
    std::string text;
    const CompileInfo ci = compilePtx(k, k.defines, arch, &text);
    if (ci.ok)
      addPtx(info, std::move(text), &ptx);
    else
      info->stages.push_back(absentStage("ptx", "the PTX compile failed: " + ci.log.substr(0, 2000)));
  } else {
    info->stages.push_back(absentStage("ptx", "a prebuilt " + ext + " carries no PTX TileScope reads"));
  }
  CompiledKernel ck;
  const CompileInfo ci = compileKernel(k, k.defines, arch, &ck);
  info->compiler = ci.compiler;
  std::vector<SassInstruction> sass;
  if (!ci.ok)
    info->stages.push_back(absentStage("sass", "the compile failed: " + ci.log.substr(0, 2000)));
  else if (ck.format != CompiledKernel::Format::cubin)
    info->stages.push_back(absentStage("sass",
                                       "the image is not a cubin (a fatbin, or PTX for the driver's "
                                       "JIT): nvdisasm reads cubins"));
  else
    info->stages.push_back(sassStage(ck.image, info, &sass));
  finish(info, sass, ptx);
}

/// Triton's compile through the helper, writing its IR (request "stages").
void tritonStages(const Config& point, const std::string& arch, StagesInfo* info) {
  info->compiler = "triton " + pythonPackageVersion("triton");
  auto absentAll = [&](const std::string& why) {
    for (const char* s : {"ttir", "ttgir", "llir", "ptx", "sass"})
      info->stages.push_back(absentStage(s, why));
  };
  detail::TempDir tmp;
  json request;
  try {
    request = tritonRequest(
        point, std::atoi(arch.c_str() + std::min(arch.size(), arch.find_first_of("0123456789"))), true);
  } catch (const std::exception& e) {
    return absentAll(e.what());
  }
  request["stages"] = true;
  const fs::path req = tmp.path / "request.json";
  std::ofstream(req) << request.dump(1);
  const PythonResult r =
      runKernelHelper({tritonHelperScript().string(), "compile", req.string(), tmp.path.string()},
                      pythonCompileTimeout(), fs::absolute(point.kernel.sourcePath).parent_path(), tmp.path);
  const json res = json::parse(detail::readText(tmp.path / "result.json"), nullptr, false);
  if (!r.started) return absentAll(r.err);
  if (!res.is_object() || !res.value("ok", false))
    return absentAll("the Triton compile failed (" + r.describe() + "): " +
                     (res.is_object() ? res.value("message", r.err.substr(0, 2000)) : r.err.substr(0, 2000)));
  FullPtx ptx;
  for (const char* name : {"ttir", "ttgir", "llir", "ptx"}) {
    std::string text;
    if (!detail::readText(tmp.path / ("kernel." + std::string(name)), &text)) {
      info->stages.push_back(
          absentStage(name, "this Triton's compiled kernel has no asm['" + std::string(name) + "']"));
      continue;
    }
    const std::string n = name;
    if (n == "ptx") {
      addPtx(info, std::move(text), &ptx);
      continue;
    }
    auto spans = n == "llir" ? llvmSpans(text) : mlirSpans(text);
    info->stages.push_back(makeStage(n, std::move(text), std::move(spans), info->maxStageBytes));
  }
  std::vector<char> cubin;
  std::vector<SassInstruction> sass;
  if (detail::readFile(tmp.path / "kernel.cubin", &cubin) && !cubin.empty())
    info->stages.push_back(sassStage(cubin, info, &sass));
  else
    info->stages.push_back(absentStage("sass", "Triton wrote no cubin"));
  finish(info, sass, ptx);
}

void tilelangStages(const Config& point, const std::string& arch, StagesInfo* info) {
  CompiledKernel ck;
  const CompileInfo ci = compileTileLang(point, arch, &ck);
  info->compiler = ci.compiler;
  for (const char* ir : {"ttir", "ttgir", "llir"})
    info->stages.push_back(absentStage(ir, "TileLang lowers through TVM, not Triton: there is no Triton IR"));
  std::vector<SassInstruction> sass;
  if (!ci.ok || !ck.tilelang) {
    info->stages.push_back(absentStage("ptx", "the TileLang compile failed: " + ci.log.substr(0, 2000)));
    info->stages.push_back(absentStage("sass", "the TileLang compile failed"));
    return finish(info, sass, {});
  }
  // Its generated .cu, compiled as the TileLang compile does (compile_tilelang.cpp).
  KernelSpec cu = point.kernel;
  cu.sourcePath = ck.tilelang->generatedSource;
  cu.compiler = "nvcc";
  cu.options = {"-std=c++17", "-O3", "-lineinfo"};
  std::string text;
  FullPtx ptx;
  const CompileInfo pi = compilePtx(cu, {}, arch, &text);
  if (pi.ok)
    addPtx(info, std::move(text), &ptx);
  else
    info->stages.push_back(
        absentStage("ptx", "the PTX compile of TileLang's CUDA failed: " + pi.log.substr(0, 2000)));
  info->stages.push_back(sassStage(ck.image, info, &sass));
  finish(info, sass, ptx);
}

}  // namespace

StagesInfo collectStages(const Config& point, const std::string& arch) {
  StagesInfo info;
  info.collected = true;
  info.arch = arch;
  if (point.kernel.isTriton())
    tritonStages(point, arch, &info);
  else if (point.kernel.language == "tilelang")
    tilelangStages(point, arch, &info);
  else
    cudaStages(point, arch, &info);
  return info;
}

}  // namespace tilescope::cuda
