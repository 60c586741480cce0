// Private helpers of the config loader (config_*.cpp): a JSON node that knows
// its path, so every error can name where it is.
#pragma once

#include <initializer_list>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "tilescope/base/expr.h"
#include "tilescope/config/config.h"

namespace tilescope::detail {

using Json = nlohmann::ordered_json;

struct Node {
  const Json& j;
  std::string path;

  /// Fails at this node; the top level's path is "" and reads "(top level)".
  [[noreturn]] void fail(const std::string& problem) const;
  Node at(const std::string& key) const;  ///< object member (must exist)
  Node at(std::size_t index) const;       ///< array element
  bool has(const std::string& key) const { return j.is_object() && j.contains(key); }
  /// Fails on the first key not in `allowed` ("unknown key").
  void onlyKeys(std::initializer_list<const char*> allowed) const;
  void needObject() const;
  void needArray() const;
  /// A string of at most `maxBytes` (ConfigLimits::kMaxStringBytes by default).
  std::string str(std::size_t maxBytes = ConfigLimits::kMaxStringBytes) const;
  /// A member of this object by iterator position: its path, with the key's
  /// length checked against ConfigLimits::kMaxNameBytes.
  Node member(const Json::const_iterator& it) const;
  std::int64_t integer() const;  ///< a JSON integer below 2^53
  double number() const;
  bool boolean() const;
  std::string expr() const;                   ///< a JSON integer or an expression string
  std::vector<std::string> exprList() const;  ///< a non-empty array of expressions
  /// Fails when this array has more than ConfigLimits::kMaxListLength elements.
  void needShortArray() const;
};

/// The names every expression may use, and what is wrong with a name that is
/// not one of them (a string define is a -D flag only).
struct SymbolCheck {
  std::set<std::string> names;
  std::set<std::string> stringDefines;
  /// Parses `expression` and fails at `where` on a syntax error or an unknown name.
  void check(const Node& where, const std::string& expression) const;
};

// config_sections.cpp
void parseKernel(const Node& n, const std::filesystem::path& dir, KernelSpec& k, bool isReference);
/// kernel.defines (CUDA) or kernel.constexprs (Triton, `allowBool`): integers, strings, numbers.
void parseDefines(const Node& n, KernelSpec& k, bool allowBool);
ArgSpec parseArg(const Node& n, const Config& c, const SymbolCheck& symbols);
// config_bytes.cpp
/// An argument object `{"kind": "bytes", ...}`: its content and relocations.
ArgSpec parseBytesArg(const Node& n, const Config& c);
LaunchSpec parseLaunch(const Node& n, const SymbolCheck& symbols, const KernelSpec& kernel);
void parseReference(const Node& n, Config& c, const SymbolCheck& symbols);
void parseBaseline(const Node& n, Config& c);
void parseRun(const Node& n, Config& c);
void parseSweep(const Node& n, Config& c);
// config_python.cpp (Triton and TileLang kernels)
/// kernel of language triton/tilelang: source .py, entry, constexprs, num_warps, num_stages, num_ctas.
void parsePythonKernel(const Node& n, const std::filesystem::path& dir, KernelSpec& k);
/// launch of a Triton/TileLang kernel: grid only; the block is 32·num_warps and the
/// shared memory comes from the compiled kernel.
LaunchSpec parsePythonLaunch(const Node& n, const SymbolCheck& symbols, const KernelSpec& kernel);
/// num_warps, num_stages or num_ctas of a Triton config.
bool isTritonOption(const KernelSpec& k, const std::string& name);
/// Fails at `where` when `value` is not valid for option `name` (num_warps a power of two, ...).
void checkTritonOption(const Node& where, const std::string& name, std::int64_t value);

// config_tensors.cpp
void parseTensors(const Node& n, Config& c, const SymbolCheck& symbols);
void parseTiles(const Node& n, Config& c, const SymbolCheck& symbols);
std::uint64_t stableNameHash(const std::string& name);

}  // namespace tilescope::detail
