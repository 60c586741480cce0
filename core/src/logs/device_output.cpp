#include "tilescope/logs/device_output.h"

#include "tilescope/base/regex.h"
#include "tilescope/logs/logtext.h"
#include "tilescope/model/point.h"

namespace tilescope {
namespace {

Index triple(const RegexMatch& m, int first) {
  return {std::stoll(m.str(first)), std::stoll(m.str(first + 1)), std::stoll(m.str(first + 2))};
}

std::string indexText(const Index& i) {
  std::string s = "(";
  for (std::size_t d = 0; d < i.size(); ++d) s += (d ? "," : "") + std::to_string(i[d]);
  return s + ")";
}

}  // namespace

std::vector<DeviceAssert> parseDeviceAsserts(std::string_view text) {
  // __assertfail's format: "%s:%u: %s: block: [%d,%d,%d], thread: [%d,%d,%d] Assertion `%s` failed."
  static const Regex re(
      R"(^(.*?):(\d+): (.*?): block: \[(\d+),(\d+),(\d+)\], thread: \[(\d+),(\d+),(\d+)\] Assertion `(.*)` failed\.?\s*$)");
  std::vector<DeviceAssert> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    // CUDA's printf buffer holds no longer line; RE2 would match one in linear time anyway.
    if (line.size() > 4096 || line.find("Assertion `") == std::string_view::npos) continue;
    RegexMatch m;
    if (!re.fullMatch(line, m)) continue;
    DeviceAssert a;
    a.file = m.str(1);
    try {
      a.line = std::stoi(m.str(2));
      a.block = triple(m, 4);
      a.thread = triple(m, 7);
    } catch (const std::exception&) {
      continue;  // digits beyond any index: not a line CUDA printed
    }
    a.function = m.str(3);
    a.condition = m.str(10);
    out.push_back(std::move(a));
  }
  return out;
}

bool locateDeviceAssert(Point& p, std::string_view text) {
  if (text.find("Assertion `") == std::string_view::npos) return false;
  const auto asserts = parseDeviceAsserts(text);
  if (asserts.empty()) return false;
  for (auto& f : p.findings) {
    if (f.category != "device_assert") continue;
    const DeviceAssert& a = asserts.front();
    Location& l = f.location;
    l.file = a.file;
    l.line = a.line;
    l.function = a.function;
    l.block = a.block;
    l.thread = a.thread;
    f.message =
        "device-side assert failed at " + a.file + ":" + std::to_string(a.line) + " in block " +
        indexText(a.block) + ", thread " + indexText(a.thread) + ": `" + a.condition + "`" +
        (asserts.size() > 1 ? " (" + std::to_string(asserts.size()) + " threads failed an assert)" : "");
    if (!f.evidence.is_object()) f.evidence = nlohmann::json::object();
    f.evidence["condition"] = a.condition;
    f.evidence["failed_asserts"] = asserts.size();
    return true;
  }
  return false;
}

void applyDeviceOutput(Point& p, std::string_view text) {
  if (text.empty()) return;
  std::string kept = repairUtf8(
      text.size() > 2 * kMaxDeviceOutputBytes ? text.substr(text.size() - 2 * kMaxDeviceOutputBytes) : text);
  if (kept.size() > kMaxDeviceOutputBytes) {  // the tail, from a line start (or a character start)
    std::size_t cut = kept.size() - kMaxDeviceOutputBytes;
    if (const auto nl = kept.find('\n', cut); nl != std::string::npos && nl + 1 < kept.size()) cut = nl + 1;
    while (cut < kept.size() && (static_cast<unsigned char>(kept[cut]) & 0xC0) == 0x80) ++cut;
    kept.erase(0, cut);
  }
  p.deviceOutput = std::move(kept);
  locateDeviceAssert(p, text);
}

}  // namespace tilescope
