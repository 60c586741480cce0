// The kernel source as a person reads it in an editor: line numbers, CUDA C++
// highlighting, the line of interest centred and tinted, and a margin that marks
// what the findings and the trace say about each line (a glyph by severity, the
// details in its tooltip). Read-only.
#pragma once

#include <QMap>
#include <QPlainTextEdit>

namespace tilescope::ui {

/// What a margin mark says about one source line.
struct SourceMark {
  int severity = 0;   ///< 0 info (trace counts), 1 warning (bank conflicts), 2 error (a fault, a hazard)
  QStringList notes;  ///< one line each, shown in the tooltip
};

class SourceView : public QPlainTextEdit {
  Q_OBJECT
 public:
  explicit SourceView(QWidget* parent = nullptr);

  /// Marks by 1-based line; replaces the previous ones.
  void setMarks(QMap<int, SourceMark> marks);
  const QMap<int, SourceMark>& marks() const { return m_marks; }
  /// Tints line `line` (1-based), puts the cursor there and centres it. False when out of range.
  bool showLine(int line);
  int shownLine() const { return m_line; }
  /// The first visible line (1-based): tests read where the view scrolled to.
  int firstVisibleLine() const;
  int marginWidth() const;

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  friend class SourceMargin;
  void paintMargin(QPaintEvent* event);
  int lineAt(int y) const;

  QWidget* m_margin;
  QMap<int, SourceMark> m_marks;
  int m_line = -1;
};

}  // namespace tilescope::ui
