// Triage export (HTML, PDF, Markdown) for the Triage view and for
// `tilescope --export TRIAGE OUT` (and so `tilescope-run export --format pdf`):
// core's triage document (tilescope/triage/triage_document.h), the one the CLI
// renders, with the taxonomy and speedup charts drawn as the Triage view draws them.
#pragma once

#include <QString>
#include <QVector>

#include "export/exportfigures.h"
#include "tilescope/triage/triage.h"

namespace tilescope::ui {

/// The pictures of triageFigures(): the same ids, titles and chart builders as the view.
QVector<Figure> renderTriageFigures(const TriageReport& t);

/// Writes `t` to outPath in the format its extension names (.html, .pdf, .md), as
/// exportReport does for a report. False with a message naming the file in *error.
bool exportTriage(const TriageReport& t, const QString& outPath, QString* error);

}  // namespace tilescope::ui
