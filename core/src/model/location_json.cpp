// The field list of a finding's Location (location.h), and the shapes earlier
// writers gave the same facts, which the reader still accepts.
#include "tilescope/model/json_fields.h"

namespace tilescope {

using json_io::Is;
using json_io::skipIfEmpty;
using nlohmann::json;

template <class IO, Is<ElementRange> S>
void fields(IO& io, S& e) {
  io("first", e.first, skipIfEmpty(e.first));
  io("last", e.last, skipIfEmpty(e.last));
  io("lo", e.lo, skipIfEmpty(e.lo));
  io("hi", e.hi, skipIfEmpty(e.hi));
  io("text", e.text, skipIfEmpty(e.text));
}

template <class IO, Is<Region> S>
void fields(IO& io, S& r) {
  io("begin", r.begin);
  io("extent", r.extent);
}

template <class IO, Is<LaunchGeometry> S>
void fields(IO& io, S& l) {
  io("grid", l.grid);
  io("block", l.block);
  io("shared_bytes", l.sharedBytes);
}

template <class IO, Is<MemoryAccess> S>
void fields(IO& io, S& a) {
  io("kind", a.kind);
  io("size", a.size);
  io("space", a.space, skipIfEmpty(a.space));
}

template <class IO, Is<Location> S>
void fields(IO& io, S& l) {
  io("output", l.output, skipIfEmpty(l.output));
  io("tile", l.tile, skipIfEmpty(l.tile));
  io("tiles", l.tiles, skipIfEmpty(l.tiles));
  io("cta", l.cta, skipIfEmpty(l.cta));
  io("ctas", l.ctas, skipIfEmpty(l.ctas));
  io("nearest_cta", l.nearestCtas, skipIfEmpty(l.nearestCtas));
  io("elements", l.elements);
  io("regions", l.regions, skipIfEmpty(l.regions));
  io("byte_offset_past_end", l.bytesPastEnd);
  io("byte_offset_before_start", l.bytesBeforeStart);
  io("thread", l.thread, skipIfEmpty(l.thread));
  io("block", l.block, skipIfEmpty(l.block));
  io("function", l.function, skipIfEmpty(l.function));
  io("file", l.file, skipIfEmpty(l.file));
  io("line", l.line);
  io("pc", l.pc);
  io("sass_offset", l.sassOffset);
  io("access", l.access);
  io("kernel", l.kernel, skipIfEmpty(l.kernel));
  io("config", l.config, skipIfEmpty(l.config));
  io("expression", l.expression, skipIfEmpty(l.expression));
  io("launch", l.launch);
  io("phase", l.phase, skipIfEmpty(l.phase));
  io("point", l.point);
  io.rest(l.extra);
}

namespace json_io {

namespace {

/// The location shapes TileScope wrote before the typed Location, rewritten to
/// today's (docs/report.md#older-location-shapes): `cta` as a list of CTAs,
/// `elements` as text beside `first_element`/`last_element`, as a list of declared
/// regions or as a tensor's element count, a list-valued `expression`, `grid` and
/// `block` of an invalid launch, diagnose's `tiles` copied from a tile summary
/// ([row, col, count, max_err]) beside `first_mismatch`, and the tracer's.
json modernised(const json& j) {
  json l = j;
  if (auto it = l.find("elements"); it != l.end() && it->is_number()) {
    l["tensor_elements"] = *it;
    l.erase("elements");
  }
  if (l.contains("grid") && l.contains("block") && !l.contains("launch")) {
    l["launch"] = {{"grid", l["grid"]}, {"block", l["block"]}, {"shared_bytes", 0}};
    l.erase("grid");
    l.erase("block");
  }
  if (auto it = l.find("cta"); it != l.end() && it->is_array() && !it->empty() && (*it)[0].is_array()) {
    if (!l.contains("ctas")) l["ctas"] = *it;
    l["cta"] = json((*it)[0]);
  }
  if (auto it = l.find("elements"); it != l.end() && it->is_string()) {
    *it = json{{"text", *it}};
  }
  if (auto it = l.find("elements"); it != l.end() && it->is_array()) {
    bool regions = true;
    for (const auto& r : *it) regions = regions && r.is_object() && r.contains("begin");
    if (regions) {
      l["regions"] = *it;
      l.erase("elements");
    }
  }
  for (const char* key : {"first_element", "last_element"}) {
    auto it = l.find(key);
    if (it == l.end()) continue;
    json& e = l["elements"];
    if (e.is_null()) e = json::object();
    if (e.is_object() && !e.contains(key[0] == 'f' ? "first" : "last"))
      e[key[0] == 'f' ? "first" : "last"] = *it;
    l.erase(key);
  }
  if (auto it = l.find("expression"); it != l.end() && it->is_array()) {
    std::string joined;
    for (const auto& e : *it)
      joined += (joined.empty() ? "" : ", ") + (e.is_string() ? e.get<std::string>() : e.dump());
    *it = joined;
  }
  if (auto it = l.find("tiles"); it != l.end() && it->is_array() && l.contains("first_mismatch"))
    for (auto& t : *it)
      if (t.is_array() && t.size() == 4) t = json::array({t[0], t[1]});
  // The tracer's first locations: one CTA in a list, one element, a byte offset
  // as a number, and the tile's origin (elements) where `tile` means its index.
  if (l.contains("sass_offset") && l.contains("element")) {
    if (auto it = l.find("element"); !l.contains("elements")) {
      l["elements"] = {{"first", *it}, {"last", *it}};
      l.erase("element");
    }
    if (auto it = l.find("tile"); it != l.end()) {
      l["tile_origin"] = *it;
      l.erase("tile");
    }
  }
  for (const char* key : {"byte_offset_past_end", "byte_offset_before_start"})
    if (auto it = l.find(key); it != l.end() && it->is_number()) *it = json::array({*it, *it});
  return l;
}

}  // namespace

json toValue(const Location& v) {
  json j = json::object();
  Writer w(j);
  fields(w, v);
  return j;
}

template <Value V>
void fromValue(const V& j, Location& out, const JsonPath& path) {
  if constexpr (std::is_same_v<V, JsonView>) {
    fromValue(j.toJson(), out, path);  // small, and its older shapes are rewritten as a document
  } else {
    if (!j.is_object()) expected(path, "an object", j);
    const json l = modernised(j);
    Reader r(l, path);
    fields(r, out);
  }
}
template void fromValue(const json&, Location&, const JsonPath&);
template void fromValue(const JsonView&, Location&, const JsonPath&);

}  // namespace json_io

json toJson(const Location& l) { return json_io::toValue(l); }

Location locationFromJson(const json& j, const std::string& path) {
  Location l;
  json_io::fromValue(j, l, path);
  return l;
}

bool Location::empty() const { return *this == Location{}; }

}  // namespace tilescope
