// The files a config reads (config_inputs.h).
#include "tilescope/config/config_inputs.h"

#include "tilescope/base/json_input.h"
#include "tilescope/config/includes.h"

namespace tilescope {

namespace fs = std::filesystem;
using Kind = ConfigInput::Kind;

namespace {

void addKernel(const KernelSpec& k, const std::string& base, const fs::path& toolkitRoot,
               std::vector<ConfigInput>& out) {
  out.push_back({Kind::source, k.sourcePath, base + ".source", k.source, {}, 0});
  if (k.isPython()) {
    // Modules the kernel may import from its own folder; Python compiles read no
    // C++ includes and pass no include options.
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(k.sourcePath.parent_path(), ec))
      if (e.path().extension() == ".py")
        out.push_back({Kind::module, e.path(), base + ".source", e.path().filename().string(), {}, 0});
    return;
  }
  for (const IncludePathOption& o : includePathOptions(k))
    out.push_back({o.isFile ? Kind::preInclude : Kind::includeDir,
                   o.path,
                   base + ".options[" + std::to_string(o.index) + "]",
                   o.value,
                   {},
                   0});
  const IncludeScan scan = scanIncludes(k.sourcePath, includeSearchFor(k, toolkitRoot));
  for (const IncludeEdge& e : scan.edges)
    out.push_back({e.computed ? Kind::computedInclude : Kind::include, e.to, base + ".source", e.spelled,
                   e.from, e.line});
}

}  // namespace

std::vector<ConfigInput> configInputs(const Config& config, const fs::path& toolkitRoot) {
  std::vector<ConfigInput> out;
  if (!config.path.empty())
    out.push_back({Kind::config, config.path, "(the config file)", config.path.string(), {}, 0});
  addKernel(config.kernel, "kernel", toolkitRoot, out);
  if (config.reference.op == "kernel") addKernel(config.reference.kernel, "reference", toolkitRoot, out);
  for (const auto& t : config.tensors)
    for (const auto& [ref, key] : {std::pair{t.init, "init"}, std::pair{t.expected, "expected"}})
      if (ref.rfind("npy:", 0) == 0)
        out.push_back({Kind::npy,
                       npyRefPath(config, ref),
                       jsonPathChild(jsonPathChild("tensors", t.name), key),
                       ref.substr(4),
                       {},
                       0});
  return out;
}

}  // namespace tilescope
