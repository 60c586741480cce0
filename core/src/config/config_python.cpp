// Kernels written in Python: `kernel.language` "triton" (a @triton.jit function) and
// "tilelang" (a function that builds a TileLang program). docs/config.md, "Triton".
#include "config_detail.h"
#include "tilescope/base/python.h"

namespace tilescope::detail {

namespace {

void parsePySource(const Node& n, const std::filesystem::path& dir, KernelSpec& k) {
  k.source = n.str();
  if (k.source.empty()) n.fail("empty path");
  std::filesystem::path p(k.source);
  if (p.extension() != ".py")
    n.fail(
        "a " + k.language + " kernel's source is a .py file, found '" + k.source + "'" +
        (p.extension() == ".cu" ? " (TileLang's generated .cu is CUDA C++: leave kernel.language out)" : ""));
  k.sourcePath = p.is_absolute() ? p : (dir / p).lexically_normal();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(k.sourcePath, ec))
    n.fail("source file '" + k.sourcePath.string() + "' does not exist");
}

int option(const Node& n, const char* key, int fallback) {
  if (!n.has(key)) return fallback;
  Node o = n.at(key);
  std::int64_t v = o.integer();
  checkTritonOption(o, key, v);
  return static_cast<int>(v);
}

}  // namespace

bool isTritonOption(const KernelSpec& k, const std::string& name) {
  if (!k.isTriton()) return false;
  for (const char* o : kTritonOptionNames)
    if (name == o) return true;
  return false;
}

void checkTritonOption(const Node& where, const std::string& name, std::int64_t v) {
  if (name == "num_warps" && (v < 1 || v > 32 || (v & (v - 1)) != 0))
    where.fail("num_warps must be a power of two from 1 to 32 (the block is 32·num_warps threads), found " +
               std::to_string(v));
  if (name == "num_stages" && (v < 0 || v > 16))
    where.fail("num_stages must be between 0 and 16, found " + std::to_string(v));
  if (name == "num_ctas" && (v < 1 || v > 16))
    where.fail("num_ctas must be between 1 and 16 (a thread-block cluster), found " + std::to_string(v));
}

void parsePythonKernel(const Node& n, const std::filesystem::path& dir, KernelSpec& k) {
  n.onlyKeys({"language", "source", "entry", "constexprs", "num_warps", "num_stages", "num_ctas"});
  if (k.language == "tilelang" && !pythonHasModule("tilelang"))
    n.at("language")
        .fail("TileLang is not installed for " + pythonInterpreter() +
              " (pip install tilelang, or set TILESCOPE_PYTHON to an interpreter that has it); "
              "TileLang's generated .cu can be opened as a CUDA kernel without it");
  parsePySource(n.at("source"), dir, k);
  k.entry = n.at("entry").str();
  if (k.entry.empty()) n.at("entry").fail("empty kernel name");
  k.compiler = k.language;
  if (n.has("constexprs")) parseDefines(n.at("constexprs"), k, true);
  k.numWarps = option(n, "num_warps", 4);
  k.numStages = option(n, "num_stages", 3);
  k.numCtas = option(n, "num_ctas", 1);
  if (k.language == "tilelang")
    for (const char* key : kTritonOptionNames)
      if (n.has(key))
        n.at(key).fail("TileLang sets its own launch (T.Kernel threads=...); remove " + std::string(key));
}

LaunchSpec parsePythonLaunch(const Node& n, const SymbolCheck& symbols, const KernelSpec& kernel) {
  n.needObject();
  const std::string who = kernel.isTriton() ? "a Triton kernel" : "a TileLang kernel";
  if (n.has("block"))
    n.at("block").fail(kernel.isTriton()
                           ? "a Triton kernel's block is 32·num_warps threads: set kernel.num_warps instead"
                           : "a TileLang kernel's block comes from its T.Kernel(threads=...)");
  if (n.has("shared_bytes"))
    n.at("shared_bytes")
        .fail("the shared memory of " + who + " comes from the compiled kernel; remove shared_bytes");
  n.onlyKeys({"grid"});
  LaunchSpec l;
  Node g = n.at("grid");
  l.grid = g.exprList();
  if (l.grid.size() > 3) g.fail("expected at most 3 dimensions, found " + std::to_string(l.grid.size()));
  for (std::size_t i = 0; i < l.grid.size(); ++i) symbols.check(g.at(i), l.grid[i]);
  while (l.grid.size() < 3) l.grid.push_back("1");
  // Triton launches 32·num_warps threads per program; TileLang's block is known once compiled.
  l.block = {kernel.isTriton() ? "32 * num_warps" : "1", "1", "1"};
  l.sharedBytes = "0";
  return l;
}

}  // namespace tilescope::detail
