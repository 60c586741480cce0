// Colours and icons shared by every view, so a verdict or a coverage state looks
// the same in the matrix, the coverage grid, the legend and the exports.
#pragma once

#include <QColor>
#include <QIcon>
#include <QString>

#include "tilescope/model/vocabulary.h"

namespace tilescope::ui {

/// Measured coverage state codes of CoverageInfo.map (report.cpp): 0 ok, 1 mismatch,
/// 2 unwritten, 3 nan_inf, 4 overlapped, 5 oob. kStateUnknown marks "no data".
enum CoverageState : int {
  kStateOk = 0,
  kStateMismatch = 1,
  kStateUnwritten = 2,
  kStateNanInf = 3,
  kStateOverlapped = 4,
  kStateOob = 5,
  kStateCount = 6,
  kStateUnknown = 255,
};

/// Okabe–Ito colours (colour-blind safe); see README "Colours".
QColor verdictColor(Verdict v);
/// A check's "ok" (nothing ran): a neutral grey, never the green of a run.
QColor checkedColor();
QColor stateColor(int state);
/// The pattern drawn over a state's colour (NoBrush for correct / no data) and its colour.
Qt::BrushStyle stateHatch(int state);
QColor stateHatchColor(int state);
/// Text colour for a cell filled with `background`: the better of near-black and white.
QColor textColorOn(const QColor& background);
/// Out-of-bounds evidence past a tensor's edge: writes vermillion, reads orange.
QColor oobColor(bool write);
/// The hatch drawn over out-of-bounds evidence (the second channel beside colour).
QColor oobHatchColor();
QString stateName(int state);
/// Severity ranks worse states higher when several cells merge into one tile.
int stateSeverity(int state);
QIcon severityIcon(Severity s);

/// A banner's tint and text colour by kind (0 ok, 1 info, 2 warning, 3 error):
/// light Okabe–Ito tints under near-black text, or with `dark` (the Dark palette)
/// deep shades of the same hues under near-white text (contrast >= 4.5:1, WCAG AA).
struct BannerColors {
  QColor background, text;
};
BannerColors bannerColors(int kind, bool dark = false);
/// The tint that marks the i-th GPU of a sweep (light Okabe–Ito tints, cycling;
/// near-black text stays readable on each).
QColor gpuTint(int i);
/// WCAG 2 contrast ratio of two colours (1..21).
double contrastRatio(const QColor& a, const QColor& b);

}  // namespace tilescope::ui
