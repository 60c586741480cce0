// A location as one line of text (location.h): what the findings table, the CLI
// summary and the exports show.
#include <cstdio>

#include <nlohmann/json.hpp>

#include "tilescope/model/location.h"

namespace tilescope {

namespace {

std::string indexText(const Index& i) { return nlohmann::json(i).dump(); }

/// "[a], [b], [c] and 4 more".
std::string indexList(const std::vector<Index>& v, std::size_t shown = 3) {
  std::string s;
  for (std::size_t i = 0; i < v.size() && i < shown; ++i) s += (i ? ", " : "") + indexText(v[i]);
  if (v.size() > shown) s += " and " + std::to_string(v.size() - shown) + " more";
  return s;
}

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string elementsText(const ElementRange& e) {
  if (e.first.empty()) return e.text;
  if (e.last.empty() || e.last == e.first) return "element " + indexText(e.first);
  return "elements " + indexText(e.first) + "…" + indexText(e.last);
}

std::string bytesText(const ByteRange& b, const char* where) {
  const std::string range = b.first == b.last
                                ? "byte " + std::to_string(b.first)
                                : "bytes " + std::to_string(b.first) + "–" + std::to_string(b.last);
  return range + " " + where;
}

}  // namespace

std::string locationText(const Location& l) {
  std::vector<std::string> parts;
  auto add = [&](std::string s) {
    if (!s.empty()) parts.push_back(std::move(s));
  };
  if (!l.output.empty()) add("output " + l.output);
  if (!l.tile.empty())
    add("tile " + indexText(l.tile));
  else if (!l.tiles.empty())
    add((l.tiles.size() == 1 ? "tile " : "tiles ") + indexList(l.tiles));
  if (!l.cta.empty())
    add("CTA " + indexText(l.cta) + (l.ctas.size() > 1 ? " (of " + std::to_string(l.ctas.size()) + ")" : ""));
  else if (!l.ctas.empty())
    add("CTAs " + indexList(l.ctas));
  if (!l.nearestCtas.empty()) add("next to CTA " + indexText(l.nearestCtas.front()));
  if (l.elements) add(elementsText(*l.elements));
  if (!l.regions.empty())
    add("region at " + indexText(l.regions.front().begin) + " extent " + indexText(l.regions.front().extent) +
        (l.regions.size() > 1 ? " and " + std::to_string(l.regions.size() - 1) + " more" : ""));
  if (l.bytesPastEnd) add(bytesText(*l.bytesPastEnd, "past the end"));
  if (l.bytesBeforeStart) add(bytesText(*l.bytesBeforeStart, "before the start"));
  if (!l.thread.empty())
    add("thread " + indexText(l.thread) + (l.block.empty() ? "" : " of block " + indexText(l.block)));
  else if (!l.block.empty())
    add("block " + indexText(l.block));
  if (l.access)
    add(l.access->kind + (l.access->size > 0 ? " of " + std::to_string(l.access->size) + " B" : "") +
        (l.access->space.empty() ? "" : " (" + l.access->space + ")"));
  if (!l.function.empty()) add("in " + l.function);
  if (!l.file.empty())
    add(l.file + (l.line ? ":" + std::to_string(*l.line) : ""));
  else if (l.line)
    add("line " + std::to_string(*l.line));
  if (l.pc) add("PC " + hex(*l.pc));
  if (l.sassOffset) add("SASS +" + hex(*l.sassOffset));
  if (!l.kernel.empty()) add("kernel " + l.kernel);
  if (!l.config.empty()) add("config " + l.config + (l.expression.empty() ? "" : " = " + l.expression));
  if (l.launch)
    add("grid " + indexText({l.launch->grid.begin(), l.launch->grid.end()}) + " block " +
        indexText({l.launch->block.begin(), l.launch->block.end()}) +
        (l.launch->sharedBytes ? " shared " + std::to_string(l.launch->sharedBytes) + " B" : ""));
  if (!l.phase.empty()) add("phase " + l.phase);
  if (l.point) add("point " + std::to_string(*l.point));
  if (l.extra.is_object())
    for (const auto& [k, v] : l.extra.items())
      add(k + " " +
          (v.is_string() ? v.get<std::string>()
                         : v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
  std::string s;
  for (const auto& p : parts) s += (s.empty() ? "" : ", ") + p;
  return s;
}

}  // namespace tilescope
