// JSON text with the report's limits: parseJson turns json_input.h's
// JsonInputError into the "line L, column C: ..." message readers show, and
// dumpJson writes what any string holds.
#include "tilescope/base/json_text.h"

#include <istream>
#include <sstream>
#include <stdexcept>

namespace tilescope {

using nlohmann::json;

namespace {

/// "line L, column C: problem" where the text locates it, else "JSON.PATH: problem".
std::string inputMessage(const JsonInputError& e) {
  if (e.position.empty()) return e.what();
  const std::size_t colon = e.position.find(':');
  return "line " + e.position.substr(0, colon) + ", column " + e.position.substr(colon + 1) + ": " +
         e.problem;
}

}  // namespace

JsonLimits reportJsonLimits() {
  JsonLimits limits;
  limits.maxBytes = kMaxReportBytes;
  limits.maxDepth = kMaxJsonDepth;
  limits.maxMembers = 65536;
  return limits;
}

json parseJson(const std::string& text) {
  try {
    return parseJson(text, reportJsonLimits());
  } catch (const JsonInputError& e) {
    throw std::runtime_error(inputMessage(e));
  }
}

json parseJson(std::istream& in) {
  std::ostringstream s;
  s << in.rdbuf();
  return parseJson(s.str());
}

std::string dumpJson(const json& j, int indent) {
  return j.dump(indent, ' ', false, json::error_handler_t::replace);
}

}  // namespace tilescope
