// Report export (HTML, PDF, Markdown) for the GUI's File > Export and for
// `tilescope --export REPORT OUT` (and so `tilescope-run export --format pdf`).
// The document is core's (tilescope/export/document.h), the same the CLI renders; the GUI
// adds its figures. Needs a QApplication for the charts (QCustomPlot is a QWidget);
// it runs under QT_QPA_PLATFORM=offscreen without a display.
#pragma once

#include <QString>

#include "tilescope/export/document.h"
#include "tilescope/model/report.h"

namespace tilescope::ui {

/// core's document of `r` with the bundled troubleshooting tree (for the fix) and `note`.
Document exportDocument(const tilescope::Report& r, const QString& note = {},
                        std::size_t maxPointRows = DocumentOptions{}.maxPointRows);

/// Writes `r` to outPath in the format its extension names: .html/.htm (self-contained,
/// figures as data URIs), .pdf (A4), .md (figures as PNGs in "<basename>_files/").
/// Returns false with a message naming the file in *error.
bool exportReport(const tilescope::Report& r, const QString& outPath, QString* error);

}  // namespace tilescope::ui
