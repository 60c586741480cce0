// The compile log with its error and warning lines linked to the kernel source:
// clicking one opens the source (when the file is reachable) and highlights the line.
#pragma once

#include <QStringList>
#include <QWidget>

#include "reportview.h"

class QTextBrowser;
class QPlainTextEdit;
class QLabel;

namespace tilescope::ui {

/// One diagnostic line of an NVRTC/nvcc/gcc log: `file(42): error: ...` or `file:42:7: error: ...`.
struct LogDiagnostic {
  QString file;
  int line = 0;
  QString severity;  ///< error | warning | ...
  QString message;
};
QList<LogDiagnostic> parseCompileLog(const QString& log);

class LogPanel : public QWidget, public ReportView {
  Q_OBJECT
 public:
  explicit LogPanel(Selection* selection, QWidget* parent = nullptr);

  /// Folders searched for the kernel source named in the config (the report's and config's folders).
  void setSourceDirs(const QStringList& dirs) { m_sourceDirs = dirs; }
  /// Opens `file` (resolved against the source dirs) and highlights `line` (1-based). False when unreachable.
  bool showSourceLine(const QString& file, int line);
  int highlightedLine() const { return m_highlighted; }
  QString logHtml() const;
  int diagnosticCount() const { return m_diagnostics.size(); }

  void onReportLoaded(const ReportPtr& report) override;
  void onReportClosed() override;
  void onSelectionChanged(const SelectionState& state) override;

 private:
  void showPoint(int point);
  QString resolve(const QString& file) const;

  Selection* m_selection;
  ReportPtr m_report;
  QStringList m_sourceDirs;
  QList<LogDiagnostic> m_diagnostics;
  QTextBrowser* m_log;
  class SourceView* m_source;
  QLabel* m_sourceLabel;
  QString m_sourcePath;
  int m_highlighted = -1;
  int m_point = -1;
};

}  // namespace tilescope::ui
