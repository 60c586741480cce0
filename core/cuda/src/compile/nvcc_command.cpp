// nvcc's command line with no text of the config on it (see nvcc_command.h).
#include "compile/nvcc_command.h"

#include <unistd.h>

#include <fstream>
#include <optional>
#include <string_view>

#include "tilescope/base/json_input.h"

namespace tilescope::cuda::detail {

namespace fs = std::filesystem;

namespace {

constexpr const char* kHeaderName = "tilescope_defines.h";
constexpr const char* kWrapperName = "kernel.cu";

bool startsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

bool identStart(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool identChar(char c) { return identStart(c) || (c >= '0' && c <= '9'); }

/// A file name the preprocessor reads verbatim between double quotes.
bool includable(const std::string& path) {
  for (unsigned char c : path)
    if (c == '"' || c == '\\' || c < 0x20 || c == 0x7f) return false;
  return true;
}

/// The value of option `o` (index i) spelled as `flag` in one of its forms:
/// "FLAG VALUE", "FLAG=VALUE", and for `joined` flags "FLAGVALUE". Advances i
/// past a separate value.
std::optional<std::string> valueOf(const std::vector<std::string>& options, std::size_t& i,
                                   std::string_view flag, bool joined) {
  const std::string& o = options[i];
  if (o == flag) {
    if (i + 1 >= options.size()) return std::nullopt;
    return options[++i];
  }
  if (startsWith(o, std::string(flag) + "=")) return o.substr(flag.size() + 1);
  if (joined && startsWith(o, flag) && o.size() > flag.size()) return o.substr(flag.size());
  return std::nullopt;
}

class Planner {
 public:
  Planner(NvccPlan& plan, const fs::path& tmp) : m_plan(plan), m_tmp(tmp) {}

  /// "#define NAME VALUE" from a define of the config (text after -DNAME=).
  void define(const std::string& name, const std::string& value, const std::string& where) {
    if (!isMacroName(name)) return fail(where + ": '" + clipForMessage(name) + "' is not a macro name");
    if (value.find_first_of(std::string("\n\r\0", 3)) != std::string::npos ||
        (!value.empty() && value.back() == '\\'))
      return fail(where + ": the value of " + name + " holds a line break, a NUL or a trailing backslash");
    m_header += "#define " + name + " " + value + "\n";
  }

  /// -D text: "NAME", "NAME=VALUE" (a bare name is defined as 1, as the compiler does).
  void defineOption(const std::string& text, const std::string& where) {
    const auto eq = text.find('=');
    define(text.substr(0, eq), eq == std::string::npos ? "1" : text.substr(eq + 1), where);
  }

  void undefine(const std::string& name, const std::string& where) {
    if (!isMacroName(name) || name.find('(') != std::string::npos)
      return fail(where + ": '" + clipForMessage(name) + "' is not a macro name");
    m_header += "#undef " + name + "\n";
  }

  /// A folder for -I/-isystem: itself, or a symlink of a safe name standing for it.
  std::string folder(const std::string& dir) {
    if (shellInert(dir)) return dir;
    const fs::path link = m_tmp / ("dir" + std::to_string(m_plan.links.size()));
    m_plan.links.emplace_back(link, dir);
    return link.string();
  }

  void preInclude(const std::string& file, const std::string& where) {
    if (!includable(file))
      return fail(where + ": '" + clipForMessage(file) +
                  "' holds a quote, a backslash or a control character and cannot be included safely");
    m_header += "#include \"" + file + "\"\n";
  }

  void option(const std::vector<std::string>& options, std::size_t& i) {
    const std::string where = "kernel.options[" + std::to_string(i) + "]";
    auto& argv = m_plan.argv;
    if (auto v = valueOf(options, i, "-D", true)) return defineOption(*v, where);
    if (auto v = valueOf(options, i, "--define-macro", false)) return defineOption(*v, where);
    if (auto v = valueOf(options, i, "-U", true)) return undefine(*v, where);
    if (auto v = valueOf(options, i, "--undefine-macro", false)) return undefine(*v, where);
    if (auto v = valueOf(options, i, "-isystem", true))
      return (void)argv.insert(argv.end(), {"-isystem", folder(*v)});
    if (auto v = valueOf(options, i, "--system-include", false))
      return (void)argv.insert(argv.end(), {"-isystem", folder(*v)});
    if (auto v = valueOf(options, i, "-include", false)) return preInclude(*v, where);
    if (auto v = valueOf(options, i, "--pre-include", false)) return preInclude(*v, where);
    if (auto v = valueOf(options, i, "-I", true)) return argv.push_back("-I" + folder(*v));
    if (auto v = valueOf(options, i, "--include-path", false)) return argv.push_back("-I" + folder(*v));
    if (!shellInert(options[i]))
      return fail(where + ": '" + clipForMessage(options[i]) +
                  "' holds characters nvcc would hand to /bin/sh (only letters, digits and _-+=.,/:@% are "
                  "passed to nvcc)");
    argv.push_back(options[i]);
  }

  void fail(const std::string& why) {
    if (m_plan.error.empty()) m_plan.error = why;
  }

  std::string header() const { return m_header; }

 private:
  NvccPlan& m_plan;
  fs::path m_tmp;
  std::string m_header =
      "// Written by TileScope: the config's defines and -include files, kept off nvcc's command line.\n";
};

}  // namespace

bool shellInert(const std::string& arg) {
  if (arg.empty()) return false;
  for (char c : arg)
    if (!identChar(c) && std::string_view("-+=.,/:@%").find(c) == std::string_view::npos) return false;
  return true;
}

bool isMacroName(const std::string& name) {
  std::size_t i = 0;
  auto ident = [&]() {
    if (i >= name.size() || !identStart(name[i])) return false;
    while (i < name.size() && identChar(name[i])) ++i;
    return true;
  };
  if (!ident()) return false;
  if (i == name.size()) return true;
  if (name[i] != '(' || name.back() != ')') return false;
  ++i;
  if (name[i] == ')') return i + 1 == name.size();
  while (ident()) {
    if (name[i] == ')') return i + 1 == name.size();
    if (name[i++] != ',') return false;
  }
  return false;
}

NvccPlan planNvcc(const std::string& nvcc, const std::string& arch, const fs::path& source,
                  const std::vector<std::pair<std::string, DefineValue>>& defines,
                  const std::vector<std::string>& options, const std::vector<std::string>& includeDirs,
                  const fs::path& tmp) {
  NvccPlan plan;
  plan.argv = {nvcc, "-cubin", "-arch=" + arch, "-Xptxas", "-v"};
  Planner p(plan, tmp);
  for (const auto& dir : includeDirs) plan.argv.push_back("-I" + p.folder(dir));
  for (const auto& [name, value] : defines) p.define(name, value.flagText(), "kernel.defines." + name);
  for (std::size_t i = 0; i < options.size(); ++i) p.option(options, i);
  plan.header = p.header();
  plan.argv.insert(plan.argv.end(), {"-include", (tmp / kHeaderName).string()});
  const std::string real = fs::absolute(source).lexically_normal().string();
  if (!includable(real))
    p.fail("the source's path '" + clipForMessage(real) +
           "' holds a quote, a backslash or a control character and cannot be compiled with nvcc");
  plan.wrapper =
      "// Written by TileScope: the kernel, by its real path, kept off nvcc's command line.\n"
      "#include \"" +
      real + "\"\n";
  return plan;
}

std::string materialize(const NvccPlan& plan, const fs::path& tmp) {
  for (const auto& [name, text] :
       {std::pair{kHeaderName, &plan.header}, std::pair{kWrapperName, &plan.wrapper}}) {
    std::ofstream f(tmp / name, std::ios::binary | std::ios::trunc);
    f << *text;
    if (!f) return std::string("cannot write ") + (tmp / name).string();
  }
  for (const auto& [link, target] : plan.links)
    if (::symlink(target.c_str(), link.c_str()) != 0) return "cannot create a symlink in " + tmp.string();
  return {};
}

std::string unmapPaths(std::string text, const NvccPlan& plan, const fs::path& tmp,
                       const std::string& sourceShown) {
  auto replaceAll = [&](const std::string& from, const std::string& to) {
    for (std::size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size())
      text.replace(at, from.size(), to);
  };
  // Longest first: dir10 before dir1.
  for (auto it = plan.links.rbegin(); it != plan.links.rend(); ++it)
    replaceAll(it->first.string(), it->second.string());
  replaceAll((tmp / kWrapperName).string(), sourceShown);
  return text;
}

}  // namespace tilescope::cuda::detail
