// The tree's texts for one report (docs/tree.md, "Texts that name the device"): the
// report's device in place of a placeholder, and the examples in its kernel's language.
#include <cmath>
#include <cstdio>

#include "tilescope/diagnose/headline.h"
#include "tilescope/diagnose/tree.h"

namespace tilescope {
namespace {

struct Placeholder {
  std::size_t begin = 0, end = 0;  ///< [begin, end) in the text, braces included
  std::string key{}, fallback{};
};

bool isKey(const std::string& k) { return k == "device" || k == "sm_count" || k == "tensor_ratio"; }

/// The text's {key|default} placeholders, in order (other braces are code: left alone).
std::vector<Placeholder> placeholders(const std::string& text) {
  std::vector<Placeholder> out;
  for (std::size_t open = text.find('{'); open != std::string::npos; open = text.find('{', open + 1)) {
    const std::size_t bar = text.find('|', open), close = text.find('}', open);
    if (bar == std::string::npos || close == std::string::npos || bar > close) continue;
    const std::string key = text.substr(open + 1, bar - open - 1);
    if (!isKey(key) || text.find('{', open + 1) < close) continue;
    out.push_back({open, close + 1, key, text.substr(bar + 1, close - bar - 1)});
  }
  return out;
}

/// The context's value of `key`, or "" when it does not know it.
std::string valueOf(const std::string& key, const TreeTextContext& c) {
  if (key == "device") return c.device;
  if (key == "sm_count") return c.smCount > 0 ? std::to_string(c.smCount) : "";
  if (key == "tensor_ratio" && c.tensorOverFp32 > 0) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", c.tensorOverFp32);
    return buf;
  }
  return "";
}

}  // namespace

TreeTextContext treeTextContext(const Report& r) {
  TreeTextContext c;
  c.device = r.device.name;
  c.smCount = r.device.smCount;
  const std::optional<double> tensor =
      r.device.f16TensorTflops ? r.device.f16TensorTflops : r.device.bf16TensorTflops;
  if (tensor && r.device.f32Tflops && *r.device.f32Tflops > 0)
    c.tensorOverFp32 = *tensor / *r.device.f32Tflops;
  c.language = kernelLanguage(r);
  return c;
}

std::string renderTreeText(const std::string& text, const TreeTextContext& c) {
  const std::vector<Placeholder> ps = placeholders(text);
  if (ps.empty()) return text;
  bool all = true;
  for (const Placeholder& p : ps) all = all && !valueOf(p.key, c).empty();
  std::string out;
  std::size_t at = 0;
  for (const Placeholder& p : ps) {
    out += text.substr(at, p.begin - at);
    out += all ? valueOf(p.key, c) : p.fallback;
    at = p.end;
  }
  return out + text.substr(at);
}

std::vector<const TreeExample*> examplesFor(const TreeNode& leaf, const std::string& language) {
  const bool python = language == "triton" || language == "tilelang";
  std::vector<const TreeExample*> out;
  for (const TreeExample& e : leaf.examples)
    if (language.empty() || e.language == language || e.language == "shell" || e.language == "json" ||
        (python && e.language == "python"))
      out.push_back(&e);
  return out;
}

TreeNode renderLeaf(const TreeNode& leaf, const TreeTextContext& c) {
  TreeNode n = leaf;
  n.explanation = renderTreeText(leaf.explanation, c);
  n.fix = renderTreeText(leaf.fix, c);
  n.examples.clear();
  for (const TreeExample* e : examplesFor(leaf, c.language))
    n.examples.push_back({e->language, renderTreeText(e->before, c), renderTreeText(e->after, c), e->rank});
  return n;
}

}  // namespace tilescope
