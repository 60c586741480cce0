// The constants the Python package shares with the C++ side
// (resources/python/tilescope/common/constants.py): this test reads that file as
// text, one `NAME = VALUE  # comment` per line, and checks each constant whose
// comment says "C++: kName" against the C++ constant: compiled in where a header
// shows it, found in its source file's text where it is local to one file.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "tilescope/capture/launch_record.h"
#include "tilescope/capture/selection.h"
#include "tilescope/config/tensor.h"
#include "tilescope/model/vocabulary.h"
#include "tilescope/triage/triage_inputs.h"
#include "tilescope/triage/triage_run.h"

namespace {

using namespace tilescope;

std::string readText(const std::string& relative) {
  std::ifstream in(std::string(TILESCOPE_SOURCE_DIR) + "/" + relative);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// "4 << 20", "0xA5", "64 * 1024", "4u << 20": integers joined by << and *, left to right.
std::uint64_t evalInteger(const std::string& expr) {
  static const std::regex token(R"(\s*(0[xX][0-9A-Fa-f]+|[0-9]+)[uUlL]*\s*(<<|\*)?)");
  std::uint64_t value = 0;
  std::string op;
  auto it = std::sregex_iterator(expr.begin(), expr.end(), token);
  for (bool first = true; it != std::sregex_iterator(); ++it, first = false) {
    const std::uint64_t n = std::stoull((*it)[1].str(), nullptr, 0);
    value = first ? n : op == "<<" ? value << n : value * n;
    op = (*it)[2].str();
  }
  return value;
}

struct PyConstant {
  std::string text;     ///< the value as written
  std::string comment;  ///< after `# `
  bool isString() const { return !text.empty() && text.front() == '"'; }
  std::string str() const { return text.substr(1, text.size() - 2); }
  std::uint64_t number() const { return evalInteger(text); }
};

const std::map<std::string, PyConstant>& pythonConstants() {
  static const std::map<std::string, PyConstant> constants = [] {
    static const std::regex line(
        R"re(^([A-Z][A-Z0-9_]*) = ("[^"\\]*"|0x[0-9A-Fa-f]+|[0-9]+(?: << [0-9]+)?)(?:  # (.*))?$)re");
    std::map<std::string, PyConstant> out;
    std::istringstream in(readText("resources/python/tilescope/common/constants.py"));
    for (std::string l; std::getline(in, l);) {
      std::smatch m;
      if (std::regex_match(l, m, line)) out[m[1].str()] = {m[2].str(), m[3].str()};
    }
    return out;
  }();
  return constants;
}

const PyConstant& py(const std::string& name) {
  static const PyConstant missing{"\"<missing>\"", ""};
  const auto& all = pythonConstants();
  const auto it = all.find(name);
  EXPECT_NE(it, all.end()) << name << " is not in constants.py (or not in the one-line form)";
  return it == all.end() ? missing : it->second;
}

/// `kName = EXPR;` in a C++ source's text, evaluated as an integer.
std::uint64_t cppSourceConstant(const std::string& relative, const std::string& name) {
  const std::string text = readText(relative);
  const std::regex def("\\b" + name + R"(\s*=\s*([^;]+);)");
  std::smatch m;
  EXPECT_TRUE(std::regex_search(text, m, def)) << name << " is not defined in " << relative;
  return m.empty() ? 0 : evalInteger(m[1].str());
}

// The Python constants this file checks, by the C++ name their comment gives.
const std::set<std::string> kChecked{
    "RUNNER_SCHEMA",    "LAUNCH_SCHEMA", "EXIT_USAGE",         "EXIT_NO_GPU",        "DEFAULT_SEEDS",
    "GUARD_BYTES",      "OUTPUT_GUARD",  "MAX_SEARCH_ENTRIES", "MAX_SEARCH_FOLDERS", "MAX_ROLE_LINE",
    "MAX_SOURCE_BYTES", "MAX_DEPTH",     "MAX_MIRROR_DEPTH",   "CAPTURE_MAX_BYTES",  "LIBRARY_KERNELS"};

TEST(PythonConstants, TheFileIsReadLineByLine) {
  const auto& all = pythonConstants();
  EXPECT_GE(all.size(), kChecked.size());
  EXPECT_EQ(evalInteger("4 << 20"), 4u << 20);
  EXPECT_EQ(evalInteger("0xA5"), 0xA5u);
  EXPECT_EQ(evalInteger("64 * 1024"), 65536u);
  EXPECT_EQ(evalInteger("4u << 20"), 4u << 20);
}

TEST(PythonConstants, EveryOneThatNamesACppConstantIsChecked) {
  for (const auto& [name, c] : pythonConstants())
    EXPECT_EQ(c.comment.rfind("C++:", 0) == 0, kChecked.count(name) == 1)
        << name << ": a constant whose comment starts with \"C++:\" is one this test checks, and only those";
}

TEST(PythonConstants, AgreeWithTheHeaders) {
  EXPECT_EQ(py("RUNNER_SCHEMA").str(), kRunnerSchema);
  EXPECT_EQ(py("LAUNCH_SCHEMA").str(), kLaunchSchema);
  EXPECT_EQ(py("LIBRARY_KERNELS").str(), kLibraryKernelPattern);
  EXPECT_EQ(py("EXIT_USAGE").number(), std::uint64_t(kExitUsage));
  EXPECT_EQ(py("EXIT_NO_GPU").number(), std::uint64_t(kExitNoGpu));
  EXPECT_EQ(py("DEFAULT_SEEDS").number(), std::uint64_t(TriageOptions{}.seeds));
  for (DType t : {DType::i32, DType::i64, DType::u8, DType::i8})
    EXPECT_EQ(py("OUTPUT_GUARD").number(), guardByte(t, 0)) << "the guard byte of a tensor that has no NaN";
  EXPECT_EQ(py("MAX_SEARCH_ENTRIES").number(), kMaxTriageSearchEntries);
  EXPECT_EQ(py("MAX_SEARCH_FOLDERS").number(), kMaxTriageSearchFolders);
  EXPECT_EQ(py("MAX_ROLE_LINE").number(), kMaxRoleLineChars);
  EXPECT_EQ(py("CAPTURE_MAX_BYTES").number(), LaunchSelection{}.maxBytes);
}

TEST(PythonConstants, AgreeWithConstantsLocalToOneSource) {
  EXPECT_EQ(py("MAX_SOURCE_BYTES").number(),
            cppSourceConstant("core/src/triage/triage_pairing.h", "kMaxTriageSourceBytes"));
  EXPECT_EQ(py("MAX_DEPTH").number(), cppSourceConstant("core/src/triage/triage_inputs.cpp", "kMaxDepth"));
  EXPECT_EQ(py("MAX_MIRROR_DEPTH").number(),
            cppSourceConstant("core/src/triage/triage_pairing.cpp", "kMaxMirrorDepth"));
  EXPECT_EQ(py("GUARD_BYTES").number(),
            cppSourceConstant("core/cuda/internal/tilescope/cuda/tensors.h", "kGuardBytes"));
}

TEST(PythonConstants, ThePoisonsAreWhatTheirCommentsSay) {
  // 0xFF bytes are a NaN in f32, f16 and bf16 (all exponent bits set, mantissa non-zero);
  // 0x3C bytes are finite in all three.
  const auto a = py("POISON_A").number(), b = py("POISON_B").number();
  EXPECT_EQ(a, py("INPUT_GUARD").number());
  const auto nan32 = [](std::uint64_t byte) {
    const std::uint32_t bits = std::uint32_t(byte) * 0x01010101u;
    return (bits & 0x7F800000u) == 0x7F800000u && (bits & 0x007FFFFFu) != 0;
  };
  const auto nan16 = [](std::uint64_t byte) {
    const std::uint16_t bits = std::uint16_t(byte * 0x0101u);
    return (bits & 0x7C00u) == 0x7C00u && (bits & 0x03FFu) != 0;
  };
  const auto nanBf16 = [](std::uint64_t byte) {
    const std::uint16_t bits = std::uint16_t(byte * 0x0101u);
    return (bits & 0x7F80u) == 0x7F80u && (bits & 0x007Fu) != 0;
  };
  EXPECT_TRUE(nan32(a) && nan16(a) && nanBf16(a));
  const auto exp32 = (std::uint32_t(b) * 0x01010101u) & 0x7F800000u;
  const auto exp16 = std::uint16_t(b * 0x0101u) & 0x7C00u, expBf16 = std::uint16_t(b * 0x0101u) & 0x7F80u;
  EXPECT_TRUE(exp32 != 0x7F800000u && exp16 != 0x7C00u && expBf16 != 0x7F80u);
}

}  // namespace
