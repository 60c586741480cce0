// Parameter types from a demangled CUDA kernel name.
#include "tilescope/capture/kernel_signature.h"

#include <cxxabi.h>

#include <cstdlib>
#include <map>
#include <memory>

#include "tilescope/base/format.h"

namespace tilescope {

std::string demangleSymbol(const std::string& mangled) {
  if (mangled.rfind("_Z", 0) != 0) return "";
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status),
                                           std::free);
  return status == 0 && d ? std::string(d.get()) : std::string();
}

namespace {

/// The index of the '(' that opens the parameter list: the last top-level
/// one, so that "(anonymous namespace)::f(int)" and templates parse.
std::size_t paramListStart(const std::string& s) {
  if (s.empty() || s.back() != ')') return std::string::npos;
  int depth = 0;
  for (std::size_t i = s.size(); i-- > 0;) {
    const char c = s[i];
    if (c == ')' || c == '>') ++depth;
    if (c == '(' || c == '<') --depth;
    if (depth == 0 && c == '(') return i;
  }
  return std::string::npos;
}

std::string dtypeOf(const std::string& t) {
  static const std::map<std::string, std::string> m = {
      {"float", "f32"},         {"double", "f64"},         {"__half", "f16"},
      {"half", "f16"},          {"__nv_bfloat16", "bf16"}, {"__nv_bfloat16_raw", "bf16"},
      {"int", "i32"},           {"long", "i64"},           {"long long", "i64"},
      {"unsigned char", "u8"},  {"signed char", "i8"},     {"char", "i8"},
      {"bool", "u8"},           {"int8_t", "i8"},          {"uint8_t", "u8"},
      {"int32_t", "i32"},       {"int64_t", "i64"},        {"c10::Half", "f16"},
      {"c10::BFloat16", "bf16"}};
  auto it = m.find(t);
  return it == m.end() ? "" : it->second;
}

KernelParamType parseParam(std::string p) {
  KernelParamType k;
  p = std::string(trimmed(p));
  int stars = 0;
  while (!p.empty() && (p.back() == '*' || p.back() == ' ' || p.back() == '&')) {
    if (p.back() == '*') ++stars;
    p.pop_back();
  }
  // "__restrict__" and "volatile" qualifiers demangle as words around the type.
  for (const char* q : {" __restrict__", " __restrict", " volatile", "volatile "}) {
    for (auto pos = p.find(q); pos != std::string::npos; pos = p.find(q))
      p.erase(pos, std::char_traits<char>::length(q));
  }
  if (p.size() > 6 && p.compare(p.size() - 6, 6, " const") == 0) {
    k.isConst = true;
    p.resize(p.size() - 6);
  }
  if (p.rfind("const ", 0) == 0) {
    k.isConst = true;
    p = p.substr(6);
  }
  k.type = std::string(trimmed(p));
  k.pointer = stars > 0;
  k.dtype = stars <= 1 ? dtypeOf(k.type) : "";
  if (!k.pointer) k.isConst = false;  // a const scalar is just a scalar
  return k;
}

}  // namespace

std::optional<std::vector<KernelParamType>> kernelParamTypes(const std::string& demangled) {
  const std::size_t open = paramListStart(demangled);
  if (open == std::string::npos) return std::nullopt;
  const std::string list = demangled.substr(open + 1, demangled.size() - open - 2);
  std::vector<KernelParamType> out;
  if (trimmed(list).empty() || trimmed(list) == "void") return out;
  int depth = 0;
  std::string cur;
  for (char c : list) {
    if (c == '<' || c == '(' || c == '[') ++depth;
    if (c == '>' || c == ')' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(parseParam(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(parseParam(cur));
  return out;
}

std::string kernelBaseName(const std::string& demangled) {
  const std::size_t open = paramListStart(demangled);
  std::string s = open == std::string::npos ? demangled : demangled.substr(0, open);
  // A leading return type ("void ns::f<int>"): the last top-level space.
  int depth = 0;
  for (std::size_t i = s.size(); i-- > 0;) {
    if (s[i] == '>' || s[i] == ')') ++depth;
    if (s[i] == '<' || s[i] == '(') --depth;
    if (depth == 0 && s[i] == ' ') return s.substr(i + 1);
  }
  return s;
}

std::string kernelShortName(const std::string& demangled) {
  const std::string base = kernelBaseName(demangled);
  std::string out;
  int depth = 0;
  for (char c : base) {
    if (c == '<') ++depth;
    if (depth == 0) out += c;
    if (c == '>' && depth > 0) --depth;
  }
  return out;
}

}  // namespace tilescope
