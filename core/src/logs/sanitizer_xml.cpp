// compute-sanitizer --xml reports (tilescope/logs/sanitizer.h). The format is a flat list of
// <record>s: <kind>Precise</kind> for memcheck/initcheck accesses (<who> thread and
// block, <what> text/space/size/direction/error/address, <where> func/pc), and
// <kind>Analysis</kind> for racecheck (<what> with a <source> and <destination>s, each
// a direction, a <where> and a hazard <count>). A small reader for that subset of XML
// (elements, text, entities; no DTDs) with a depth and size limit keeps the core free
// of an XML library dependency on GPU hosts.
#include <cctype>
#include <memory>
#include <vector>

#include "sanitizer_detail.h"
#include "tilescope/logs/sanitizer.h"

namespace tilescope {
namespace {

using sv = std::string_view;

constexpr int kMaxDepth = 64;
constexpr std::size_t kMaxNodes = 2'000'000;

struct Node {
  std::string name, text;
  std::vector<std::unique_ptr<Node>> children;
  const Node* child(sv n) const {
    for (const auto& c : children)
      if (c->name == n) return c.get();
    return nullptr;
  }
  std::string value(sv n) const {
    const Node* c = child(n);
    return c ? c->text : std::string();
  }
};

class XmlReader {
 public:
  explicit XmlReader(sv s) : m_text(s) {}

  // The document's root element, or null with error() set.
  std::unique_ptr<Node> parse() {
    skipMisc();
    auto root = element(0);
    if (root && m_error.empty()) return root;
    if (m_error.empty()) m_error = "no root element";
    return nullptr;
  }
  const std::string& error() const { return m_error; }

 private:
  void fail(const std::string& why) {
    if (m_error.empty()) m_error = why + " at byte " + std::to_string(m_pos);
  }
  bool starts(sv p) const { return m_text.substr(m_pos, p.size()) == p; }
  void skipSpace() {
    while (m_pos < m_text.size() &&
           (m_text[m_pos] == ' ' || m_text[m_pos] == '\n' || m_text[m_pos] == '\r' || m_text[m_pos] == '\t'))
      ++m_pos;
  }
  // Declarations, comments, processing instructions between elements.
  void skipMisc() {
    for (;;) {
      skipSpace();
      if (starts("<?")) {
        const auto e = m_text.find("?>", m_pos);
        m_pos = e == sv::npos ? m_text.size() : e + 2;
      } else if (starts("<!--")) {
        const auto e = m_text.find("-->", m_pos);
        m_pos = e == sv::npos ? m_text.size() : e + 3;
      } else if (starts("<!")) {
        fail("document type declarations are not read");
        m_pos = m_text.size();
      } else {
        return;
      }
    }
  }
  std::string name() {
    const std::size_t b = m_pos;
    while (m_pos < m_text.size() && m_text[m_pos] != '>' && m_text[m_pos] != '/' && m_text[m_pos] != ' ' &&
           m_text[m_pos] != '\n' && m_text[m_pos] != '\t' && m_text[m_pos] != '\r')
      ++m_pos;
    return std::string(m_text.substr(b, m_pos - b));
  }
  void appendText(std::string* out, sv raw) {
    for (std::size_t k = 0; k < raw.size(); ++k) {
      if (raw[k] != '&') {
        *out += raw[k];
        continue;
      }
      const auto semi = raw.find(';', k);
      if (semi == sv::npos || semi - k > 10) {
        *out += '&';
        continue;
      }
      const sv ent = raw.substr(k + 1, semi - k - 1);
      if (ent == "lt")
        *out += '<';
      else if (ent == "gt")
        *out += '>';
      else if (ent == "amp")
        *out += '&';
      else if (ent == "quot")
        *out += '"';
      else if (ent == "apos")
        *out += '\'';
      else if (!ent.empty() && ent[0] == '#') {
        const bool hexa = ent.size() > 1 && (ent[1] == 'x' || ent[1] == 'X');
        unsigned long cp = 0;
        for (char c : ent.substr(hexa ? 2 : 1))
          cp = cp * (hexa ? 16 : 10) +
               unsigned(std::isxdigit(c) ? (c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10) : 0);
        *out += cp > 0 && cp < 128 ? char(cp) : '?';
      } else {
        out->append(raw.substr(k, semi - k + 1));
      }
      k = semi;
    }
  }
  std::unique_ptr<Node> element(int depth) {
    if (depth > kMaxDepth) {
      fail("elements nested deeper than " + std::to_string(kMaxDepth));
      return nullptr;
    }
    if (++m_nodes > kMaxNodes) {
      fail("more than " + std::to_string(kMaxNodes) + " elements");
      return nullptr;
    }
    if (!starts("<")) {
      fail("expected an element");
      return nullptr;
    }
    ++m_pos;
    auto node = std::make_unique<Node>();
    node->name = name();
    // Attributes are not used by compute-sanitizer's records: skip them.
    while (m_pos < m_text.size() && m_text[m_pos] != '>' && !starts("/>")) ++m_pos;
    if (starts("/>")) {
      m_pos += 2;
      return node;
    }
    if (m_pos >= m_text.size()) {
      fail("unterminated <" + node->name + ">");
      return nullptr;
    }
    ++m_pos;
    for (;;) {
      const auto lt = m_text.find('<', m_pos);
      if (lt == sv::npos) {
        fail("unterminated <" + node->name + ">");
        return nullptr;
      }
      appendText(&node->text, m_text.substr(m_pos, lt - m_pos));
      m_pos = lt;
      if (starts("</")) {
        m_pos += 2;
        const std::string closing = name();
        if (closing != node->name) {
          fail("</" + closing + "> closes <" + node->name + ">");
          return nullptr;
        }
        while (m_pos < m_text.size() && m_text[m_pos] != '>') ++m_pos;
        ++m_pos;
        return node;
      }
      if (starts("<!--") || starts("<?")) {
        skipMisc();
        continue;
      }
      auto c = element(depth + 1);
      if (!c) return nullptr;
      node->children.push_back(std::move(c));
    }
  }

  sv m_text;
  std::size_t m_pos = 0;
  std::size_t m_nodes = 0;
  std::string m_error;
};

std::string lower(std::string s) {
  for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::optional<Index3> dim(const Node* n) {
  if (!n) return std::nullopt;
  return Index3{detail::parseCount(n->value("x")), detail::parseCount(n->value("y")),
                detail::parseCount(n->value("z"))};
}

std::string stripUnderscores(std::string s) {
  while (!s.empty() && s.front() == '_') s.erase(0, 1);
  while (!s.empty() && s.back() == '_') s.pop_back();
  return s;
}

void where(const Node* w, std::string* kernel, std::optional<std::uint64_t>* pc, std::string* file,
           int* line) {
  if (!w) return;
  *kernel = w->value("func");
  *pc = detail::parseHex(w->value("pc"));
  *file = w->value("file");
  *line = int(detail::parseCount(w->value("line")));
}

SanitizerFinding precise(const Node& rec) {
  SanitizerFinding f;
  f.severity = lower(rec.value("level")) == "warning" ? "warning" : "error";
  if (const Node* who = rec.child("who")) {
    f.thread = dim(who->child("threadIdx"));
    f.block = dim(who->child("blockIdx"));
  }
  if (const Node* what = rec.child("what")) {
    f.message = what->value("text");
    f.space = stripUnderscores(what->value("space"));
    f.size = int(detail::parseCount(what->value("size")));
    f.access = lower(what->value("direction"));
    if (f.access == "?") f.access.clear();
    f.address = detail::parseHex(what->value("address"));
    const std::string err = lower(what->value("error"));
    const bool uninit =
        f.message.find("Uninitialized") != std::string::npos || err.find("uninit") != std::string::npos;
    f.tool = uninit ? "initcheck" : "memcheck";
    f.kind = uninit                                           ? "uninitialized"
             : err.find("misaligned") != std::string::npos    ? "misaligned"
             : err.find("out of bounds") != std::string::npos ? "out_of_bounds"
                                                              : "invalid_access";
  }
  where(rec.child("where"), &f.kernel, &f.pc, &f.file, &f.line);
  return f;
}

SanitizerFinding analysis(const Node& rec) {
  SanitizerFinding f;
  f.tool = "racecheck";
  f.kind = "race";
  f.space = "shared";
  f.severity = lower(rec.value("level")) == "warning" ? "warning" : "error";
  const Node* what = rec.child("what");
  if (!what) return f;
  f.message = what->value("text");
  for (const auto& c : what->children) {
    if (c->name != "source" && c->name != "destination") continue;
    SanitizerAccess a;
    a.direction = lower(c->value("direction"));
    where(c->child("where"), &a.kernel, &a.pc, &a.file, &a.line);
    a.hazards = detail::parseCount(c->value("count"));
    f.accesses.push_back(std::move(a));
  }
  return f;
}

}  // namespace

SanitizerReport parseSanitizerXml(std::string_view xml) {
  SanitizerReport r;
  r.xml = true;
  const auto start = xml.find("<?xml") != sv::npos ? xml.find("<?xml") : xml.find("<ComputeSanitizerOutput");
  if (start == sv::npos) {
    r.xmlError = "no <ComputeSanitizerOutput> element";
    return r;
  }
  XmlReader reader(xml.substr(start));
  auto root = reader.parse();
  if (!root || root->name != "ComputeSanitizerOutput") {
    r.xmlError =
        root ? "the root element is <" + root->name + ">, not <ComputeSanitizerOutput>" : reader.error();
    return r;
  }
  std::map<std::string, std::size_t> folded;
  for (const auto& rec : root->children) {
    if (rec->name != "record") continue;
    const std::string kind = rec->value("kind");
    SanitizerFinding f = kind == "Analysis" ? analysis(*rec) : precise(*rec);
    if (f.message.empty()) f.message = kind;
    detail::addFolded(&r, detail::finish(std::move(f)), &folded);
  }
  detail::settleTool(&r);
  return r;
}

}  // namespace tilescope
