// One compiler stage (SASS, PTX, TTGIR, ...) beside the source, as the Source
// view's IR panes show it: a SourceView without CUDA colouring but with the
// stage's (opcodes, locations and comments), line numbers of the stage's text,
// the lines of the source cursor's line tinted, and a mark (glyph, tooltip and
// tag) on each instruction a finding or the trace names. When a person moves
// its cursor (a click, the keys), it says which line: the panel moves the
// source there.
#pragma once

#include "widgets/sourceview.h"

namespace tilescope::ui {

class IrView : public SourceView {
  Q_OBJECT
 public:
  explicit IrView(QWidget* parent = nullptr);

  /// The stage's text, the cursor at its start; never says lineActivated.
  void setStageText(const QString& text);

  /// Tints `lines` (1-based) and, unless the cursor is on one of them already,
  /// puts the cursor on `anchor` (0: the first of them) and centres it; never
  /// says lineActivated.
  void follow(const QList<int>& lines, int anchor = 0);

 signals:
  /// A person put the cursor on line `line` (1-based) of the stage's text.
  void lineActivated(int line);

 private:
  bool m_moving = false;  ///< follow() is moving the cursor
};

}  // namespace tilescope::ui
