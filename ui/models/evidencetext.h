// A finding's evidence as a person reads it in the Findings table and its tooltip:
// bytes with their unit and every digit ("2 MiB (2,097,152 bytes)"), shares as
// percent ("achieved: 12.1 %"), large counts grouped ("16,479,530"), and the
// detector's thresholds left out: a threshold is the rule the evidence was judged
// by, not a measurement.
#pragma once

#include <QString>
#include <QVector>
#include <utility>

#include <nlohmann/json.hpp>

namespace tilescope::ui {

/// An integer with a comma every three digits: 2097152 → "2,097,152".
QString groupedInteger(double value);

/// A number under its evidence key, with the unit the key implies ("tensor_bytes",
/// "achieved", "sm_pct", "kernel_median_ns", "speedup"); formatNumber otherwise.
QString evidenceValueText(const std::string& key, double value);

/// True for keys that name the detector's rule, not a measurement ("threshold_pct").
bool isThresholdKey(const std::string& key);

/// The evidence's rows (core's evidenceRows, nested keys as paths) with the values
/// above formatted and the thresholds dropped.
QVector<std::pair<QString, QString>> evidenceTextRows(const nlohmann::json& evidence);

}  // namespace tilescope::ui
