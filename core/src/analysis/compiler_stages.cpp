// Source lines of the compiler stages' text (compiler_stages.h): PTX `.loc`,
// MLIR `loc(...)`, LLVM `!dbg`, nvdisasm's `//## File` comments. Each parser
// reads its text line by line (no regular expressions): linear in its size.
#include "tilescope/analysis/compiler_stages.h"

#include <charconv>
#include <map>

#include "stage_text.h"

namespace tilescope {

namespace stage_text {

std::vector<std::string_view> splitLines(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.push_back(line);
    at = end + 1;
  }
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool startsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

long long leadingInt(std::string_view s, std::size_t* used) {
  long long v = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (used) *used = r.ec == std::errc() ? std::size_t(r.ptr - s.data()) : 0;
  return r.ec == std::errc() ? v : -1;
}

std::string quoted(std::string_view s, std::size_t* end) {
  const auto open = s.find('"');
  if (open == std::string_view::npos) return {};
  const auto close = s.find('"', open + 1);
  if (close == std::string_view::npos) return {};
  if (end) *end = close + 1;
  return std::string(s.substr(open + 1, close - open - 1));
}

void SpanBuilder::add(int textLine, const std::string& file, int line) {
  if (line <= 0) return gap();
  if (m_open && !m_spans.empty() && m_spans.back().line == line && m_spans.back().file == file) {
    m_spans.back().last = textLine;
    return;
  }
  m_spans.push_back({textLine, textLine, file, line});
  m_open = true;
}

}  // namespace stage_text

using namespace stage_text;

namespace {

/// A PTX line that is an instruction (not a directive, label, brace, comment).
bool isPtxInstruction(std::string_view t) {
  if (t.empty() || t.back() != ';') return false;
  return t[0] != '.' && t[0] != '/' && t[0] != '{' && t[0] != '}';
}

/// `.file 1 "/dir/k.cu"` (maybe followed by a timestamp and a size).
std::map<long long, std::string> ptxFiles(const std::vector<std::string_view>& lines) {
  std::map<long long, std::string> files;
  for (auto l : lines) {
    const auto t = trim(l);
    if (!startsWith(t, ".file")) continue;
    std::size_t used = 0;
    const long long id = leadingInt(trim(t.substr(5)), &used);
    if (id >= 0) files[id] = quoted(t, nullptr);
  }
  return files;
}

}  // namespace

std::vector<StageSpan> ptxSpans(std::string_view ptx) {
  const auto lines = splitLines(ptx);
  const auto files = ptxFiles(lines);
  SpanBuilder spans;
  std::string file;
  int line = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto t = trim(lines[i]);
    if (startsWith(t, ".loc")) {
      // .loc FILE LINE COL[, function_name ..., inlined_at F L C]
      std::string_view rest = trim(t.substr(4));
      std::size_t used = 0;
      const long long id = leadingInt(rest, &used);
      rest = trim(rest.substr(used));
      const long long ln = leadingInt(rest, &used);
      const auto it = files.find(id);
      file = it == files.end() ? std::string() : it->second;
      line = ln > 0 && ln < (1 << 30) ? int(ln) : 0;
      continue;
    }
    if (t == "}") line = 0;  // the end of a function: no line until the next .loc
    if (isPtxInstruction(t)) spans.add(int(i + 1), file, line);
  }
  return spans.take();
}

int countPtxInstructions(const StageSpan& s, const std::vector<std::string_view>& lines) {
  int n = 0;
  for (int i = std::max(s.first, 1); i <= s.last && i <= int(lines.size()); ++i)
    n += isPtxInstruction(trim(lines[std::size_t(i - 1)]));
  return n;
}

std::vector<SassInstruction> parseNvdisasm(std::string_view listing) {
  std::vector<SassInstruction> out;
  std::string function, file;
  int line = 0;
  const auto lines = splitLines(listing);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto t = trim(lines[i]);
    if (startsWith(t, "//## File")) {
      // //## File "/dir/k.cu", line 110 [inlined at "/dir/k.cu", line 145]
      std::size_t end = 0;
      file = quoted(t, &end);
      const auto at = t.find(", line ", end);
      line = at == std::string_view::npos ? 0 : int(std::max(0LL, leadingInt(t.substr(at + 7), nullptr)));
    } else if (startsWith(t, ".text.") && t.back() == ':') {
      function = std::string(t.substr(6, t.size() - 7));
      file.clear();
      line = 0;
    } else if (startsWith(t, "/*")) {
      const auto close = t.find("*/");
      if (close == std::string_view::npos) continue;
      std::uint64_t offset = 0;
      const auto hex = t.substr(2, close - 2);
      if (std::from_chars(hex.data(), hex.data() + hex.size(), offset, 16).ec != std::errc()) continue;
      const auto text = trim(t.substr(close + 2));
      if (text.empty()) continue;
      SassInstruction s{function, offset, file, line, std::string(text), {}, int(i + 1)};
      std::string_view op = text;
      if (op[0] == '@') op = trim(op.substr(std::min(op.size(), op.find(' '))));  // the predicate
      s.opcode = std::string(op.substr(0, op.find_first_of(" ;")));
      out.push_back(std::move(s));
    }
  }
  return out;
}

std::vector<StageSpan> sassSpans(const std::vector<SassInstruction>& instructions) {
  // Lines between two instructions of one source line (a label) stay in its span.
  SpanBuilder spans;
  for (const auto& s : instructions) spans.add(s.textLine, s.file, s.line);
  return spans.take();
}

CompilerStage makeStage(std::string name, std::string text, std::vector<StageSpan> spans,
                        std::int64_t maxBytes) {
  CompilerStage s;
  s.name = std::move(name);
  s.present = true;
  s.bytes = std::int64_t(text.size());
  for (char c : text) s.lines += c == '\n';
  if (!text.empty() && text.back() != '\n') ++s.lines;
  if (maxBytes > 0 && s.bytes > maxBytes) {
    const auto cut = text.rfind('\n', std::size_t(maxBytes - 1));
    text.resize(cut == std::string::npos ? std::size_t(maxBytes) : cut + 1);
    int kept = 0;
    for (char c : text) kept += c == '\n';
    std::erase_if(spans, [&](const StageSpan& x) { return x.first > kept; });
    for (auto& x : spans) x.last = std::min(x.last, kept);
    s.clipped = true;
  }
  s.text = std::move(text);
  s.spans = std::move(spans);
  return s;
}

CompilerStage absentStage(std::string name, std::string why) {
  CompilerStage s;
  s.name = std::move(name);
  s.absent = std::move(why);
  return s;
}

}  // namespace tilescope
