// `init-triton FILE.py[::KERNEL]`: a starting config from a Triton kernel's
// signature. The helper reads the signature (no GPU, no compile); core turns it
// into a config (initTritonConfig); the result is loaded back before it is
// written, so what this verb writes always passes the config loader.
#include <filesystem>
#include <iostream>

#include "commands.h"
#include "options.h"
#include "tilescope/base/atomic_write.h"
#include "tilescope/base/python.h"
#include "tilescope/config/config.h"
#include "tilescope/config/triton_init.h"

namespace tilescope::cli {

namespace fs = std::filesystem;

int cmdInitTriton(const InitTritonArgs& a) {
  std::string file = a.target, kernel;
  if (auto sep = a.target.rfind("::"); sep != std::string::npos) {
    file = a.target.substr(0, sep);
    kernel = a.target.substr(sep + 2);
  }
  std::error_code ec;
  if (fs::is_directory(file, ec)) return usageError(file + ": is a directory (expected FILE.py::KERNEL)");
  if (!fs::is_regular_file(file, ec)) return usageError(file + ": no such file (expected FILE.py::KERNEL)");
  if (fs::path(file).extension() != ".py")
    return usageError(file + ": not a .py file (expected FILE.py::KERNEL)");
  const fs::path out = a.output.empty()
                           ? fs::path(fs::path(file).replace_extension("").string() + "_" +
                                      (kernel.empty() ? std::string("kernel") : kernel) + ".tscfg.json")
                           : fs::path(a.output);
  // symlink_status: a link, even a dangling one, is there (a link planted at the
  // default name would have the config written wherever it points).
  if (fs::is_symlink(fs::symlink_status(out, ec)))
    return usageError(out.string() + " is a symbolic link: not written through it (remove it or pass -o)");
  if (fs::exists(out, ec) && !a.force) return usageError(out.string() + " exists (use --force to overwrite)");

  // Reading the signature imports the file: confined unless --allow-commands (docs/security.md).
  setPythonKernelsTrusted(a.allowCommands);
  PythonResult r =
      runKernelHelper({tritonHelperScript().string(), "signature", fs::absolute(file).string(), kernel},
                      pythonCompileTimeout(), fs::absolute(file).parent_path(), {});
  nlohmann::json answer = r.outputCut ? nlohmann::json() : nlohmann::json::parse(r.out, nullptr, false);
  if (!answer.is_object())
    return usageError("reading the kernel's signature with " + pythonInterpreter() + " failed (" +
                      r.describe() + ")\n" + r.err);
  TritonSignatureInfo sig;
  try {
    sig = tritonSignatureFromJson(answer);
  } catch (const std::exception& e) {
    return usageError(e.what());
  }
  fs::path outDir = out.parent_path().empty() ? fs::path(".") : out.parent_path();
  const std::string source = fs::relative(fs::absolute(file), fs::absolute(outDir), ec).string();
  nlohmann::ordered_json doc = initTritonConfig(sig, source.empty() ? file : source);
  const std::string text = doc.dump(2) + "\n";
  try {
    (void)parseConfigText(text, outDir, out.string());
  } catch (const ConfigError& e) {
    std::cerr << "tilescope-run: note: the started config does not load yet: " << e.what() << '\n';
  }
  try {
    writeFileAtomically(out, text);  // O_EXCL temporary file, then rename
  } catch (const std::exception& e) {
    return usageError(e.what());
  }
  std::cerr << "wrote " << out.string() << " for " << sig.name << " (" << file << ":" << sig.defLine << ")\n"
            << "next: check its shapes, grid and values, then `tilescope-run check " << out.string() << "`\n";
  if (source.rfind("..", 0) == 0)
    std::cerr
        << "note: the kernel lies outside the config's folder; a config reads only inside its own folder "
           "unless you pass --allow-outside-paths (docs/security.md): write the config beside the kernel "
           "to avoid it\n";
  return kExitOk;
}

Verb addInitTritonCommand(CLI::App& app) {
  auto a = std::make_shared<InitTritonArgs>();
  auto* it = app.add_subcommand("init-triton", "write a starting config from a Triton kernel's signature");
  it->add_option("KERNEL", a->target, "FILE.py::KERNEL (the @triton.jit function)")->required();
  it->add_option("-o,--output", a->output, "config to write (default FILE_KERNEL.tscfg.json)");
  it->add_flag("--force", a->force, "overwrite an existing file");
  it->add_flag("--allow-commands", a->allowCommands,
               "import the kernel's file unconfined (by default it runs in a sandbox: docs/security.md)");
  return {it, [a] { return cmdInitTriton(*a); }};
}

}  // namespace tilescope::cli
