// What every export format shows, as plain (unescaped) text in sections and
// tables; htmlexport and markdownexport only differ in how they write it.
#pragma once

#include <QString>
#include <QStringList>
#include <QVector>

#include "export/exportfigures.h"
#include "tilescope/report.h"

namespace tilescope::ui {

struct ExportTable {
  QString caption;
  QStringList headers;
  QVector<QStringList> rows;
};

struct ExportSection {
  QString heading;
  QStringList paragraphs;
  QVector<ExportTable> tables;
  QStringList figureIds;          ///< Figure::id, in order
  bool pageBreakBefore = false;   ///< PDF: start on a new page
};

struct ExportDocument {
  QString title;
  QVector<ExportSection> sections;
};

/// Sections: summary, configuration, findings, troubleshooting path, points,
/// timing, correctness, occupancy, hardware counters, coverage (empty ones left out).
ExportDocument buildExportDocument(const Report& r, const QVector<Figure>& figures, const QString& note);

/// Compact text of a JSON value: strings unquoted, objects as "k=v, k=v".
QString jsonText(const nlohmann::json& j);

}  // namespace tilescope::ui
