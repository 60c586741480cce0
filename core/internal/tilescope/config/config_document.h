// A Config as a tilescope.config/1 document, written by the same field lists that
// read it (core/src/config/config_fields.cpp): loading the document gives the
// same Config back. Keys come in the order of docs/config.md; values that equal
// their defaults are left out, but for reference, baseline and tolerance.
#pragma once

#include <nlohmann/json.hpp>

#include "tilescope/config/config.h"

namespace tilescope {

/// The config's document (what parseConfigText reads back to an equal Config).
nlohmann::ordered_json configDocument(const Config& config);

}  // namespace tilescope
