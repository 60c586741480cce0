// Internals shared by diagnose*.cpp (not a public header).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tilescope/model/point.h"

namespace tilescope::diagnose_detail {

bool hasUnwritten(const Point& p);
/// A nan_inf finding, or NaN/Inf counted in a checked output.
bool hasNanInf(const Point& p);
const Finding* findingOf(const Point& p, const std::string& category);
/// The primary finding's location, else the first mismatch and worst tiles.
Location locationOf(const Point& p);
std::string tensorOf(const Point& p);
Finding makeFinding(const std::string& category, const std::string& detail, const std::string& message,
                    const std::string& experiment, const std::string& node);
/// What a caller would have to do to meet the condition an experiment found
/// (pass aligned tensors, keep sizes multiples of the tile, ...): appended to the
/// message as "Callers must WHAT." and kept as evidence.caller_must. Call it
/// after the evidence is set.
void callerMust(Finding& f, const std::string& what);
/// The category's default tree node (the registry's), with ".<detail>" for mismatch.
std::string nodeFor(const std::string& category, const std::string& detail);
std::int64_t lowBit(std::int64_t v);
std::string joinInts(const std::vector<int>& v, const std::string& unit);
/// An input scale as names and messages show it ("0.0625", "32").
std::string scaleText(double factor);

}  // namespace tilescope::diagnose_detail
