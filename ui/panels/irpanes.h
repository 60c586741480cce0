// The Source view's IR panes (docs/report.md, "Compiler stages"): a tab per
// compiler stage of the point (SASS, PTX, TTGIR; TTIR and LLIR where present;
// a stage the compiler does not make is a disabled tab whose tooltip says why),
// each following the source cursor: the lines that came from its line are
// tinted and scrolled to, and a person's cursor on an IR line asks for its
// source line (sourceLineActivated). The SASS lines that findings and the trace
// name by offset are marked (glyph, tooltip, tag). Above the tabs, the line's
// summary: instructions, load and store widths, tensor-core instructions, spills.
// What maps and summarises is core's (analysis/stage_map.h); this only displays.
#pragma once

#include <QMap>
#include <QWidget>

#include "reportview.h"
#include "tilescope/analysis/stage_map.h"
#include "widgets/sourceview.h"

class QLabel;
class QTabWidget;

namespace tilescope::ui {

class IrView;

class IrPanes : public QWidget {
  Q_OBJECT
 public:
  explicit IrPanes(QWidget* parent = nullptr);

  /// The stages of point `point` of `report`, else of its first point that has
  /// some (the label says whose). False, and hidden, when no point has stages.
  bool setPoint(const ReportPtr& report, int point);
  void clear();
  bool hasStages() const { return m_stagesPoint >= 0; }
  /// The point whose stages are shown (-1: none).
  int stagesPoint() const { return m_stagesPoint; }

  /// The source cursor is on `file`:`line` (file matched by name).
  void followSource(const QString& file, int line);

  /// The pane of stage `name` (sass, ptx, ttgir, ttir, llir); null when absent.
  IrView* pane(const QString& name) const { return m_panes.value(name); }
  QTabWidget* tabs() const { return m_tabs; }
  /// The summary above the tabs (the source line's, then whose stages).
  QString summaryText() const;

  /// The SASS pane's marks of point `p`: its findings' and its trace's instructions.
  static QMap<int, SourceMark> marksFor(const Point& p) { return marksOf(sassMarks(p)); }

 signals:
  /// A person put an IR pane's cursor on a line that came from `file`:`line`.
  void sourceLineActivated(const QString& file, int line);

 private:
  void addPane(const CompilerStage& stage);
  void onPaneLine(const QString& stage, int line);
  const Point* shownPoint() const;
  QString markedText() const;
  static QMap<int, SourceMark> marksOf(const std::vector<StageMark>& marks);

  ReportPtr m_report;
  int m_stagesPoint = -1;
  QString m_context;  ///< whose stages, their compiler and arch, what was cut
  std::vector<StageMark>
      m_sassMarks;  ///< the shown point's, once: the summary reads them at every cursor move
  QLabel* m_summary;
  QTabWidget* m_tabs;
  QMap<QString, IrView*> m_panes;
};

}  // namespace tilescope::ui
