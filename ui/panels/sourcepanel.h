// The Source view (docs/report.md, "trace"): the kernel source with line numbers
// and highlighting, each line marked with what the point's findings and its trace
// say about it (faulting accesses, hazards, bank-conflict ways, uninitialised
// reads, access counts) and PC sampling (samples and stall reasons per line).
// Selecting a finding with a file:line, or a hot line, opens it centred (with
// nothing to select, the line with the most SASS where stages say). With
// compiler stages (`--stages`), IR panes beside it follow the cursor both ways
// (IrPanes): the SASS, PTX and TTGIR of the cursor's line tinted, a click on
// an IR line moves the source there, the line's summary above them.
#pragma once

#include <QStringList>
#include <QWidget>

#include "models/ifdefs.h"
#include "reportview.h"
#include "widgets/sourceview.h"

class QLabel;
class QSplitter;

namespace tilescope::ui {

class IrPanes;

class SourcePanel : public QWidget, public ReportView {
  Q_OBJECT
 public:
  explicit SourcePanel(Selection* selection, QWidget* parent = nullptr);

  /// Folders searched for a source file named relatively (report's, config's folders);
  /// the zoo's kernels/ folders are searched after them.
  void setSourceDirs(const QStringList& dirs) { m_sourceDirs = dirs; }
  /// Opens `file` and centres `line` (1-based). False (with the reason shown) when unreachable.
  bool showSourceLine(const QString& file, int line);
  SourceView* view() const { return m_view; }
  IrPanes* irPanes() const { return m_ir; }
  QString shownPath() const { return m_path; }
  QString statusText() const;
  /// Where the sources of the bundled samples and the zoo live: kernels/<family>/.
  static QStringList zooDirs();
  /// The file and line of the finding the verdict banner leads with (core's headline
  /// cause); line 0 when it has none.
  static QPair<QString, int> headlineLine(const Report& report);
  /// The macros a point's kernel was compiled with: its defines (kernel.defines),
  /// __CUDACC__, and __CUDACC_RTC__ under NVRTC, __CUDA_ARCH__ from the device's cc.
  static MacroTable macrosFor(const Report& report, const Point& p);
  /// Margin marks of `file` (matched by file name) from a point's findings, trace and PC sampling.
  static QMap<int, SourceMark> marksFor(const Point& p, const QString& file);

  void onReportLoaded(const ReportPtr& report) override;
  void onReportClosed() override;
  void onSelectionChanged(const SelectionState& state) override;

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  QString resolve(const QString& file) const;
  void clear();
  void refreshMarks();
  /// The IR panes follow the source cursor's line.
  void followCursor();
  /// The source its widest line where the panes keep 44 columns (until a person drags the split).
  void fitSplit();

  Selection* m_selection;
  ReportPtr m_report;
  int m_point = -1;
  QStringList m_sourceDirs;
  QString m_path, m_file;
  QLabel* m_label;
  SourceView* m_view;
  QSplitter* m_split;
  IrPanes* m_ir;
  int m_widest = 0;          ///< the shown source's widest line, in pixels
  bool m_userSplit = false;  ///< a person moved the split: it stays where they put it
};

}  // namespace tilescope::ui
