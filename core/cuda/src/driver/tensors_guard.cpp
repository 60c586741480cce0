// Guard-zone evidence: bytes a kernel wrote before a tensor's start or past its
// end, translated into elements, rows and the CTAs that own them.
#include <algorithm>
#include <sstream>

#include "tilescope/analysis/tiles.h"
#include "tilescope/cuda/driver.h"
#include "tilescope/cuda/tensors.h"

namespace tilescope::cuda {
namespace {

std::int64_t floorDiv(std::int64_t a, std::int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

std::string shapeText(const std::vector<std::int64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string ordinal(std::int64_t k, const char* unit, bool past) {
  if (k == 1) return std::string("one ") + (past ? "past the last " : "before the first ") + unit;
  return std::to_string(k) + " " + unit + "s " + (past ? "past the last one" : "before the first one");
}

struct ChangedRange {
  std::int64_t first = -1, last = -1, count = 0;  ///< byte offsets relative to the tensor's base
};

// Compares whole elements (aligned to the tensor's base): a written value can
// share single bytes with the guard pattern, so a byte-wise diff would undercount.
ChangedRange scanZone(const std::vector<std::uint8_t>& got, std::int64_t zoneStart, DType dtype) {
  const std::int64_t es = std::int64_t(dtypeSize(dtype));
  const std::int64_t zoneEnd = zoneStart + std::int64_t(got.size());
  ChangedRange r;
  for (std::int64_t e0 = floorDiv(zoneStart, es) * es; e0 < zoneEnd; e0 += es) {
    bool changed = false;
    for (std::int64_t rel = std::max(e0, zoneStart); rel < std::min(e0 + es, zoneEnd); ++rel) {
      std::uint8_t expect = guardByte(dtype, std::size_t(((rel % es) + es) % es));
      if (got[std::size_t(rel - zoneStart)] != expect) changed = true;
    }
    if (!changed) continue;
    if (r.first < 0) r.first = std::max(e0, zoneStart);
    r.last = std::min(e0 + es, zoneEnd) - 1;
    r.count += std::min(e0 + es, zoneEnd) - std::max(e0, zoneStart);
  }
  return r;
}

// The CTAs whose declared tiles hold element `idx`, and that tile.
std::vector<Index> owners(const TileCoverage* tiles, const Index& idx, Index* tileOut) {
  std::vector<Index> ctas;
  if (!tiles || idx.size() != tiles->shape().size()) return ctas;
  try {
    for (const auto& c : tiles->ownersOf(idx, 4)) ctas.push_back({c[0], c[1], c[2]});
  } catch (const std::exception&) {
  }
  // The declared tile the element would fall in (tiles sit at multiples of the extent).
  tileOut->clear();
  const auto& ext = tiles->tileExtent();
  for (std::size_t d = 0; d < idx.size() && d < ext.size(); ++d)
    tileOut->push_back(floorDiv(idx[d], std::max<std::int64_t>(ext[d], 1)));
  return ctas;
}

std::string text(const Index& i) { return nlohmann::json(i).dump(); }

}  // namespace

std::string describeOutsideElement(const std::string& name, const std::vector<std::int64_t>& shape,
                                   std::int64_t e, std::vector<std::int64_t>* index) {
  index->assign(shape.size(), 0);
  std::ostringstream s;
  if (shape.empty()) return "element " + std::to_string(e) + " of " + name;
  // Unravel row-major with the leading dimension unbounded, so an element past
  // the end lands on row M, M+1, ... (and before the start on row -1, ...).
  std::int64_t rest = e;
  for (std::size_t d = shape.size(); d-- > 1;) {
    std::int64_t ext = std::max<std::int64_t>(shape[d], 1);
    (*index)[d] = ((rest % ext) + ext) % ext;
    rest = floorDiv(rest, ext);
  }
  (*index)[0] = rest;
  const std::int64_t lead = (*index)[0];
  const char* unit = shape.size() == 1 ? "element" : "row";
  s << unit << " " << lead;
  if (shape.size() > 1) {
    s << " (index [";
    for (std::size_t d = 0; d < index->size(); ++d) s << (d ? ", " : "") << (*index)[d];
    s << "])";
  }
  s << " of " << name << shapeText(shape);
  if (lead >= shape[0]) s << ", " << ordinal(lead - shape[0] + 1, unit, true);
  if (lead < 0) s << ", " << ordinal(-lead, unit, false);
  return s.str();
}

std::vector<Finding> checkGuards(const DeviceTensor& t, const TileCoverage* tiles, std::string* error) {
  std::vector<Finding> findings;
  if (!t.guarded) return findings;
  const std::int64_t es = std::int64_t(dtypeSize(t.dtype));
  std::vector<std::uint8_t> before(t.guardBefore), after(t.guardAfter);
  CUresult r = cuMemcpyDtoH(before.data(), t.allocation, before.size());
  if (r == CUDA_SUCCESS) r = cuMemcpyDtoH(after.data(), t.ptr + t.bytes, after.size());
  if (r != CUDA_SUCCESS) {
    *error = "cannot read the guard zones of " + t.name + ": " + cuErrorText(r);
    return findings;
  }
  struct Zone {
    ChangedRange range;
    bool past;
  };
  Zone zones[2] = {{scanZone(before, -std::int64_t(t.guardBefore), t.dtype), false},
                   {scanZone(after, std::int64_t(t.bytes), t.dtype), true}};
  for (const Zone& z : zones) {
    if (z.range.count == 0) continue;
    Finding f;
    f.category = "oob_write";
    f.severity = Severity::error;
    f.tensor = t.name;
    std::vector<std::int64_t> firstIdx, lastIdx;
    std::string firstText = describeOutsideElement(t.name, t.shape, floorDiv(z.range.first, es), &firstIdx);
    std::string lastText = describeOutsideElement(t.name, t.shape, floorDiv(z.range.last, es), &lastIdx);
    // Byte offsets as a person counts them: from the end (0 = first byte past it) or before the start (1 =
    // last byte before it).
    std::int64_t b0 = z.past ? z.range.first - std::int64_t(t.bytes) : -z.range.last;
    std::int64_t b1 = z.past ? z.range.last - std::int64_t(t.bytes) : -z.range.first;
    std::ostringstream m;
    m << t.name << ": " << z.range.count / es << " element(s) written "
      << (z.past ? "past its end" : "before its start") << " (bytes " << b0 << "–" << b1
      << (z.past ? " past the end" : " before the start") << "): first " << firstText;
    if (lastIdx != firstIdx) m << "; last " << lastText;
    Index firstTile, lastTile;
    std::vector<Index> ctas = owners(tiles, firstIdx, &firstTile);
    for (const auto& c : owners(tiles, lastIdx, &lastTile))
      if (std::find(ctas.begin(), ctas.end(), c) == ctas.end()) ctas.push_back(c);
    if (!firstTile.empty()) m << "; declared tile " << text(firstTile);
    if (!ctas.empty()) m << " (CTA " << text(ctas[0]) << (ctas.size() > 1 ? " and others" : "") << ")";
    // No CTA's tile holds an element outside the tensor: name the CTAs owning the
    // nearest element inside it, the usual writers of an off-by-one row or column.
    std::vector<Index> nearest;
    if (ctas.empty() && tiles && firstIdx.size() == t.shape.size()) {
      std::vector<std::int64_t> clamped = firstIdx;
      for (std::size_t d = 0; d < clamped.size(); ++d)
        clamped[d] = std::clamp<std::int64_t>(clamped[d], 0, std::max<std::int64_t>(t.shape[d] - 1, 0));
      Index unused;
      nearest = owners(tiles, clamped, &unused);
      if (!nearest.empty())
        m << " (no CTA's tile holds it; the tile next to it inside " << t.name << " is CTA "
          << text(nearest[0]) << "'s)";
    }
    f.message = m.str();
    Location& loc = f.location;
    (z.past ? loc.bytesPastEnd : loc.bytesBeforeStart) = ByteRange{b0, b1};
    loc.elements =
        ElementRange{firstIdx, lastIdx, {}, {}, firstText + (lastIdx != firstIdx ? " … " + lastText : "")};
    loc.tile = firstTile;
    loc.ctas = ctas;
    if (!ctas.empty()) loc.cta = ctas.front();
    loc.nearestCtas = nearest;
    f.evidence = {{"guard_zone", z.past ? "after" : "before"},
                  {"bytes_changed", z.range.count},
                  {"elements_changed", z.range.count / es},
                  {"guard_bytes", z.past ? t.guardAfter : t.guardBefore},
                  {"first_byte", z.range.first},
                  {"last_byte", z.range.last},
                  {"tensor_bytes", t.bytes}};
    findings.push_back(std::move(f));
  }
  return findings;
}

}  // namespace tilescope::cuda
