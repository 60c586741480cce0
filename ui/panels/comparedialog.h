// File ▸ Compare with…: one point of the open report (A) beside one point of
// another (B), as core's comparison (tilescope/export/report_diff.h) reads them:
// the same document the CLI prints and the exports write (buildCompareDocument),
// one tab per section, each table as a table. Export writes it as HTML, PDF or
// Markdown through ui/export's writers.
#pragma once

#include <QDialog>
#include <QList>

#include "tilescope/export/report_diff.h"

class QLabel;
class QTabWidget;
class QTableWidget;

namespace tilescope::ui {

class CompareDialog : public QDialog {
  Q_OBJECT
 public:
  explicit CompareDialog(QWidget* parent = nullptr);

  /// Shows `diff` (replacing what was shown).
  void setDiff(const ReportDiff& diff);
  const ReportDiff& diff() const { return m_diff; }
  const Document& document() const { return m_document; }

  QTabWidget* tabs() const { return m_tabs; }
  /// The tables of section `id` (summary, timing, resources, correctness, counters, findings), in order.
  QList<QTableWidget*> tables(const QString& id) const;
  /// Writes the comparison to `path` in the format its extension names (.html, .pdf, .md).
  bool exportTo(const QString& path, QString* error) const;

 private:
  void exportAsked();
  QWidget* sectionPage(const DocSection& s);

  ReportDiff m_diff;
  Document m_document;
  QLabel* m_headline = nullptr;
  QTabWidget* m_tabs = nullptr;
};

}  // namespace tilescope::ui
