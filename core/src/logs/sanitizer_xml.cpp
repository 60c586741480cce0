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
  explicit XmlReader(sv s) : s_(s) {}

  // The document's root element, or null with error() set.
  std::unique_ptr<Node> parse() {
    skipMisc();
    auto root = element(0);
    if (root && error_.empty()) return root;
    if (error_.empty()) error_ = "no root element";
    return nullptr;
  }
  const std::string& error() const { return error_; }

 private:
  void fail(const std::string& why) {
    if (error_.empty()) error_ = why + " at byte " + std::to_string(i_);
  }
  bool starts(sv p) const { return s_.substr(i_, p.size()) == p; }
  void skipSpace() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t')) ++i_;
  }
  // Declarations, comments, processing instructions between elements.
  void skipMisc() {
    for (;;) {
      skipSpace();
      if (starts("<?")) {
        const auto e = s_.find("?>", i_);
        i_ = e == sv::npos ? s_.size() : e + 2;
      } else if (starts("<!--")) {
        const auto e = s_.find("-->", i_);
        i_ = e == sv::npos ? s_.size() : e + 3;
      } else if (starts("<!")) {
        fail("document type declarations are not read");
        i_ = s_.size();
      } else {
        return;
      }
    }
  }
  std::string name() {
    const std::size_t b = i_;
    while (i_ < s_.size() && s_[i_] != '>' && s_[i_] != '/' && s_[i_] != ' ' && s_[i_] != '\n' &&
           s_[i_] != '\t' && s_[i_] != '\r')
      ++i_;
    return std::string(s_.substr(b, i_ - b));
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
    if (++nodes_ > kMaxNodes) {
      fail("more than " + std::to_string(kMaxNodes) + " elements");
      return nullptr;
    }
    if (!starts("<")) {
      fail("expected an element");
      return nullptr;
    }
    ++i_;
    auto node = std::make_unique<Node>();
    node->name = name();
    // Attributes are not used by compute-sanitizer's records: skip them.
    while (i_ < s_.size() && s_[i_] != '>' && !starts("/>")) ++i_;
    if (starts("/>")) {
      i_ += 2;
      return node;
    }
    if (i_ >= s_.size()) {
      fail("unterminated <" + node->name + ">");
      return nullptr;
    }
    ++i_;
    for (;;) {
      const auto lt = s_.find('<', i_);
      if (lt == sv::npos) {
        fail("unterminated <" + node->name + ">");
        return nullptr;
      }
      appendText(&node->text, s_.substr(i_, lt - i_));
      i_ = lt;
      if (starts("</")) {
        i_ += 2;
        const std::string closing = name();
        if (closing != node->name) {
          fail("</" + closing + "> closes <" + node->name + ">");
          return nullptr;
        }
        while (i_ < s_.size() && s_[i_] != '>') ++i_;
        ++i_;
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

  sv s_;
  std::size_t i_ = 0;
  std::size_t nodes_ = 0;
  std::string error_;
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
