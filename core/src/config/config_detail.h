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

/// The symbols a tiles expression adds (tileSymbols): the program's index, then the grid.
inline constexpr const char* kTileNames[] = {"pid_x", "pid_y", "pid_z", "nctas_x", "nctas_y", "nctas_z"};

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
/// kernel.source of a CUDA kernel: its type and that it exists; sets k.sourcePath.
void parseSource(const Node& n, const std::filesystem::path& dir, KernelSpec& k);
/// kernel.defines (CUDA) or kernel.constexprs (Triton, `allowBool`): integers, strings, numbers.
void parseDefines(const Node& n, KernelSpec& k, bool allowBool);
/// An argument given as a string or an integer: a tensor's name or a typed expression.
ArgSpec parseArg(const Node& n, const Config& c, const SymbolCheck& symbols);
/// A tensor's name (reference.a, ...): it must exist, and be an output when `mustBeOutput`.
std::string tensorRef(const Node& n, const Config& c, bool mustBeOutput = false);
// config_bytes.cpp (a `bytes` argument's content)
std::vector<std::uint8_t> parseHex(const Node& n);
std::vector<std::uint8_t> readBytesFile(const Node& n, const std::filesystem::path& dir);
std::string sizeLimitText();
// config_python.cpp (Triton and TileLang kernels)
/// kernel.source of a Python kernel: a .py file that exists; sets k.sourcePath.
void parsePySource(const Node& n, const std::filesystem::path& dir, KernelSpec& k);
/// num_warps, num_stages or num_ctas of a Triton config.
bool isTritonOption(const KernelSpec& k, const std::string& name);
/// Fails at `where` when `value` is not valid for option `name` (num_warps a power of two, ...).
void checkTritonOption(const Node& where, const std::string& name, std::int64_t value);

// config_tensors.cpp
/// "npy:PATH": the file must exist (relative to the config's folder).
void checkNpyRef(const Node& n, const std::string& value, const std::filesystem::path& dir);
std::uint64_t stableNameHash(const std::string& name);

// config_fields.cpp: the field lists (config_codec.h)
/// A parsed document as a Config: every section read and validated through its field list.
Config readConfigDocument(const Json& doc, const std::filesystem::path& dir);
/// A config a person will finish (init-triton's) as a document: configDocument's,
/// less what Opt::draftSkip leaves out (the tolerance at its default).
Json draftDocument(const Config& config);
/// Writes what a sweep point or --set sets (the fields of Opt::point) over `doc`.
void writePointFields(const Config& config, Json& doc);

}  // namespace tilescope::detail
