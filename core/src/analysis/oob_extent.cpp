#include "tilescope/analysis/oob_extent.h"

#include <algorithm>

namespace tilescope {

namespace {

std::int64_t floorDiv(std::int64_t a, std::int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

/// Row-major unravel with the leading dimension unbounded (as the guard-zone scan names elements).
Index unravel(std::int64_t linear, const std::vector<std::int64_t>& shape) {
  Index idx(shape.size(), 0);
  std::int64_t rest = linear;
  for (std::size_t d = shape.size(); d-- > 1;) {
    const std::int64_t ext = std::max<std::int64_t>(shape[d], 1);
    idx[d] = ((rest % ext) + ext) % ext;
    rest = floorDiv(rest, ext);
  }
  if (!idx.empty()) idx[0] = rest;
  return idx;
}

std::int64_t ravel(const Index& idx, const std::vector<std::int64_t>& shape) {
  std::int64_t linear = 0;
  for (std::size_t d = 0; d < shape.size(); ++d)
    linear = linear * std::max<std::int64_t>(shape[d], 1) + idx[d];
  return linear;
}

const nlohmann::json* guardZoneOf(const nlohmann::json& evidence) {
  if (!evidence.is_object()) return nullptr;
  const auto gz = evidence.find("guard_zone");
  if (gz == evidence.end()) return nullptr;
  if (gz->is_object()) return &*gz;              // a traced finding keeps the measurement here
  return gz->is_string() ? &evidence : nullptr;  // the guard zone's own finding
}

}  // namespace

std::optional<ElementRange> guardZoneElements(const Finding& f, const std::vector<std::int64_t>& shape) {
  const nlohmann::json* gz = guardZoneOf(f.evidence);
  if (!gz || shape.empty()) return std::nullopt;
  auto integer = [gz](const char* key) -> std::optional<std::int64_t> {
    const auto it = gz->find(key);
    if (it == gz->end() || !it->is_number_integer()) return std::nullopt;
    return it->get<std::int64_t>();
  };
  const auto first = integer("first_byte"), last = integer("last_byte"), bytes = integer("tensor_bytes");
  std::int64_t elements = 1;
  for (std::int64_t d : shape) {
    if (d <= 0 || elements > (std::int64_t{1} << 50) / d) return std::nullopt;
    elements *= d;
  }
  if (!first || !last || !bytes || *bytes <= 0 || *bytes % elements != 0 || *last < *first)
    return std::nullopt;
  const std::int64_t es = *bytes / elements;
  ElementRange e;
  e.first = unravel(floorDiv(*first, es), shape);
  e.last = unravel(floorDiv(*last, es), shape);
  return e;
}

std::int64_t elementCount(const ElementRange& e, const std::vector<std::int64_t>& shape) {
  if (e.lo.size() == shape.size() && e.hi.size() == shape.size() && !shape.empty()) {
    std::int64_t n = 1;
    for (std::size_t d = 0; d < shape.size(); ++d) n *= std::max<std::int64_t>(0, e.hi[d] - e.lo[d] + 1);
    return n;
  }
  if (e.first.size() != shape.size() || shape.empty()) return 0;
  const Index& last = e.last.size() == shape.size() ? e.last : e.first;
  return std::max<std::int64_t>(0, ravel(last, shape) - ravel(e.first, shape) + 1);
}

std::optional<ElementRange> oobElements(const Finding& f, const std::vector<std::int64_t>& shape) {
  const std::optional<ElementRange> measured = guardZoneElements(f, shape);
  const std::optional<ElementRange>& located = f.location.elements;
  if (!measured) return located;
  if (!located || elementCount(*measured, shape) > elementCount(*located, shape)) return measured;
  return located;
}

}  // namespace tilescope
