#include "widgets/irview.h"

#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QTextBlock>

namespace tilescope::ui {

namespace {

/// The stages as a disassembly reads: opcodes bold, offsets, locations and comments
/// greyed, directives and labels apart. One set of rules for SASS, PTX and MLIR:
/// each rule matches only its own stage's syntax.
class IrHighlighter : public QSyntaxHighlighter {
 public:
  explicit IrHighlighter(QTextDocument* doc) : QSyntaxHighlighter(doc) {
    const auto fmt = [](QColor c, bool bold = false, bool italic = false) {
      QTextCharFormat f;
      f.setForeground(c);
      if (bold) f.setFontWeight(QFont::Bold);
      f.setFontItalic(italic);
      return f;
    };
    // The source view's dark Okabe–Ito tones: >= 4.5:1 on a white page.
    const QTextCharFormat op = fmt(QColor(0x00, 0x4f, 0x7c), true), grey = fmt(QColor(0x5a, 0x5a, 0x5a));
    const QTextCharFormat directive = fmt(QColor(0x8a, 0x2f, 0x6a)),
                          comment = fmt(QColor(0x5a, 0x5a, 0x5a), false, true);
    const auto rule = [this](const char* re, const QTextCharFormat& f, int group = 0) {
      m_rules.push_back({QRegularExpression(QString::fromLatin1(re)), f, group});
    };
    // SASS: "/*1dd0*/   @!P0 STG.E.U16 desc[UR4][R2.64], R5 ;"
    rule("^\\s*(/\\*[0-9a-f]+\\*/)", grey, 1);
    rule("\\*/\\s*(?:@!?U?P[T0-9]+\\s+)?([A-Z][A-Z0-9_]*(?:\\.[A-Za-z0-9_]+)*)", op, 1);
    // PTX: "\tst.global.u16 \t[%rd4], %rs1;" and its directives.
    rule("^\\s+([a-z][a-z0-9_]*(?:\\.[a-z0-9_]+)*)(?=\\s)", op, 1);
    rule("^\\s*(\\.[a-z_]+)", directive, 1);
    // MLIR: "%5 = tt.load %4, %3 : ..." and its locations.
    rule("=\\s+\"?([a-z_]+\\.[a-z_.]+)", op, 1);
    rule("^\\s*([a-z_]+\\.[a-z_.]+)\\b", op, 1);
    rule("\\bloc\\((?:[^()]|\\([^()]*\\))*\\)|#loc[0-9]*", grey);
    // Labels of any stage: "$L__BB0_2:", ".L_x_0:", "^bb1:".
    rule("^\\s*[$.^A-Za-z_][$.A-Za-z0-9_]*:\\s*$", directive);
    rule("//.*$", comment);
  }

 protected:
  void highlightBlock(const QString& text) override {
    for (const Rule& r : m_rules)
      for (auto it = r.re.globalMatch(text); it.hasNext();) {
        const auto m = it.next();
        setFormat(static_cast<int>(m.capturedStart(r.group)), static_cast<int>(m.capturedLength(r.group)),
                  r.format);
      }
  }

 private:
  struct Rule {
    QRegularExpression re;
    QTextCharFormat format;
    int group = 0;
  };
  std::vector<Rule> m_rules;
};

}  // namespace

IrView::IrView(QWidget* parent) : SourceView(parent, false) {
  new IrHighlighter(document());
  // PTX and LLVM IR indent with tabs: four columns, not Qt's 80 pixels.
  setTabStopDistance(fontMetrics().horizontalAdvance(QLatin1Char(' ')) * 4);
  connect(this, &QPlainTextEdit::cursorPositionChanged, this, [this] {
    if (!m_moving) emit lineActivated(cursorLine());
  });
}

void IrView::setStageText(const QString& text) {
  m_moving = true;
  setRelatedLines({});
  setMarks({});
  setPlainText(text);
  m_moving = false;
}

void IrView::follow(const QList<int>& lines, int anchor) {
  setRelatedLines(lines);
  if (lines.isEmpty() || lines.contains(cursorLine())) return;
  const QTextBlock block = document()->findBlockByNumber((anchor > 0 ? anchor : lines.front()) - 1);
  if (!block.isValid()) return;
  m_moving = true;
  setTextCursor(QTextCursor(block));
  centerCursor();
  m_moving = false;
}

}  // namespace tilescope::ui
