// The kernel source as a person reads it in an editor: line numbers, CUDA C++
// highlighting, the line of interest centred and tinted, and a margin that marks
// what the findings and the trace say about each line (a glyph by severity, the
// details in its tooltip). With PC sampling, a column left of the numbers gives
// each line's share of the kernel's samples as a bar and a percentage (ncu's
// Source page), its stall reasons in the tooltip. Read-only; the cursor moves
// with the mouse and the keys. The IR panes (IrView) are SourceViews too: the
// lines that came from the source cursor's line tinted ("related"), a mark's
// tag written after its line.
#pragma once

#include <QMap>
#include <QPlainTextEdit>
#include <QSet>
#include <cstdint>

class QPainter;

namespace tilescope::ui {

/// What a margin mark says about one source line.
struct SourceMark {
  int severity = 0;    ///< 0 info (trace counts), 1 warning (bank conflicts), 2 error (a fault, a hazard)
  QStringList notes;   ///< one line each, shown in the tooltip
  bool glyph = false;  ///< a finding or the trace says something: the severity glyph is drawn
  std::int64_t samples = 0;  ///< PC samples that fell on the line (0: none)
  double sampleShare = 0;    ///< its share of the kernel's samples, 0..1
  QString tag;               ///< drawn after the line's text ("◀ oob_write (trace)"), "" for none
};

class SourceView : public QPlainTextEdit {
  Q_OBJECT
 public:
  /// `cudaHighlighting`: colour CUDA C++ (false: the caller installs its own highlighter).
  explicit SourceView(QWidget* parent = nullptr, bool cudaHighlighting = true);

  /// Marks by 1-based line; replaces the previous ones.
  void setMarks(QMap<int, SourceMark> marks);
  const QMap<int, SourceMark>& marks() const { return m_marks; }
  /// Greys the lines (1-based) the preprocessor leaves out (inactiveLines()); replaces the previous ones.
  void setInactiveLines(QSet<int> lines);
  const QSet<int>& inactiveLines() const { return m_inactive; }
  /// The colour an inactive line's text is drawn in.
  QColor inactiveColor() const;
  /// Tints line `line` (1-based), puts the cursor there and centres it. False when out of range.
  bool showLine(int line);
  int shownLine() const { return m_line; }
  /// The 1-based line the text cursor is on.
  int cursorLine() const;
  /// Tints lines (1-based) in the related colour: an IR pane's lines of the source
  /// cursor's line, the source cursor's line itself. Replaces the previous ones.
  void setRelatedLines(QList<int> lines);
  const QList<int>& relatedLines() const { return m_related; }
  /// The related tint (Okabe–Ito sky blue, light): text on it keeps its contrast.
  static QColor relatedColor();
  /// The first visible line (1-based): tests read where the view scrolled to.
  int firstVisibleLine() const;
  int marginWidth() const;
  /// The width of the samples column (0 when no mark has samples).
  int samplesWidth() const;
  /// The samples column's text of `line` ("12.3%"), "" when it has none.
  QString samplesText(int line) const;

 protected:
  void resizeEvent(QResizeEvent* event) override;
  void paintEvent(QPaintEvent* event) override;

 private:
  friend class SourceMargin;
  void paintMargin(QPaintEvent* event);
  void paintSamples(QPainter& p, const QRectF& r, int line, double maxShare);
  int lineAt(int y) const;
  void applySelections();

  QWidget* m_margin;
  QMap<int, SourceMark> m_marks;
  QSet<int> m_inactive;
  QList<int> m_related;
  int m_line = -1;
};

}  // namespace tilescope::ui
