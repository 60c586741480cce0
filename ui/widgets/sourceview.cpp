#include "widgets/sourceview.h"

#include <QHelpEvent>
#include <QPainter>
#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QTextBlock>
#include <QTextLayout>
#include <QToolTip>

#include "style/colors.h"

namespace tilescope::ui {

namespace {
/// CUDA C++ as an editor colours it: keywords, types, numbers, strings, comments, preprocessor.
class CudaHighlighter : public QSyntaxHighlighter {
 public:
  explicit CudaHighlighter(QTextDocument* doc) : QSyntaxHighlighter(doc) {
    auto fmt = [](QColor c, bool bold = false, bool italic = false) {
      QTextCharFormat f;
      f.setForeground(c);
      if (bold) f.setFontWeight(QFont::Bold);
      f.setFontItalic(italic);
      return f;
    };
    // Dark tones of the Okabe–Ito hues: >= 4.5:1 on a white page.
    const QString kw = QStringLiteral(
        "\\b(if|else|for|while|do|return|break|continue|switch|case|default|const|constexpr|static|inline|"
        "template|typename|"
        "struct|class|namespace|using|extern|volatile|sizeof|auto|__global__|__device__|__host__|__shared__|_"
        "_constant__|"
        "__restrict__|__forceinline__|__syncthreads|__syncwarp|true|false|nullptr)\\b");
    m_rules.push_back({QRegularExpression(kw), fmt(QColor(0x00, 0x4f, 0x7c), true)});
    m_rules.push_back(
        {QRegularExpression(QStringLiteral("\\b(void|bool|char|short|int|long|unsigned|signed|float|double|"
                                           "half|__half|__nv_bfloat16|size_t|"
                                           "u?int(8|16|32|64)_t|float[1-4]|int[1-4]|uint[1-4]|dim3)\\b")),
         fmt(QColor(0x7a, 0x3e, 0x00))});
    m_rules.push_back(
        {QRegularExpression(QStringLiteral("\\b(threadIdx|blockIdx|blockDim|gridDim|warpSize)\\b")),
         fmt(QColor(0x8a, 0x2f, 0x6a), true)});
    m_rules.push_back(
        {QRegularExpression(QStringLiteral("\\b(0x[0-9a-fA-F]+|\\d+\\.?\\d*([eE][-+]?\\d+)?[fFuUlL]*)\\b")),
         fmt(QColor(0x00, 0x6b, 0x4e))});
    m_rules.push_back(
        {QRegularExpression(QStringLiteral("\"([^\"\\\\]|\\\\.)*\"")), fmt(QColor(0x00, 0x6b, 0x4e))});
    m_rules.push_back({QRegularExpression(QStringLiteral("^\\s*#\\s*\\w+")), fmt(QColor(0x8a, 0x2f, 0x6a))});
    m_comment = fmt(QColor(0x5a, 0x5a, 0x5a), false, true);
  }

 protected:
  void highlightBlock(const QString& text) override {
    for (const auto& [re, f] : m_rules)
      for (auto it = re.globalMatch(text); it.hasNext();) {
        const auto m = it.next();
        setFormat(static_cast<int>(m.capturedStart()), static_cast<int>(m.capturedLength()), f);
      }
    // Comments last: they win over anything inside them. State 1: inside /* ... */.
    int start = previousBlockState() == 1 ? 0 : -1;
    setCurrentBlockState(0);
    int from = 0;
    while (true) {
      if (start < 0) {
        const int line = static_cast<int>(text.indexOf(QLatin1String("//"), from));
        const int block = static_cast<int>(text.indexOf(QLatin1String("/*"), from));
        if (line >= 0 && (block < 0 || line < block)) {
          setFormat(line, static_cast<int>(text.size()) - line, m_comment);
          return;
        }
        if (block < 0) return;
        start = block;
      }
      const int end = static_cast<int>(text.indexOf(QLatin1String("*/"), start + 2));
      if (end < 0) {
        setFormat(start, static_cast<int>(text.size()) - start, m_comment);
        setCurrentBlockState(1);
        return;
      }
      setFormat(start, end + 2 - start, m_comment);
      from = end + 2;
      start = -1;
    }
  }

 private:
  std::vector<std::pair<QRegularExpression, QTextCharFormat>> m_rules;
  QTextCharFormat m_comment;
};
}  // namespace

class SourceMargin : public QWidget {
 public:
  explicit SourceMargin(SourceView* view) : QWidget(view), m_view(view) { setMouseTracking(true); }
  QSize sizeHint() const override { return {m_view->marginWidth(), 0}; }

 protected:
  void paintEvent(QPaintEvent* e) override { m_view->paintMargin(e); }
  bool event(QEvent* e) override {
    if (e->type() == QEvent::ToolTip) {
      auto* help = static_cast<QHelpEvent*>(e);
      const int line = m_view->lineAt(help->pos().y());
      const auto it = m_view->marks().find(line);
      if (it != m_view->marks().end())
        QToolTip::showText(help->globalPos(), it->notes.join(QLatin1Char('\n')), this);
      else
        QToolTip::hideText();
      return true;
    }
    return QWidget::event(e);
  }

 private:
  SourceView* m_view;
};

SourceView::SourceView(QWidget* parent, bool cudaHighlighting) : QPlainTextEdit(parent) {
  setReadOnly(true);
  // Read-only, but the cursor moves by keys too: the IR panes follow it.
  setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
  setLineWrapMode(QPlainTextEdit::NoWrap);
  QFont mono(QStringLiteral("monospace"));
  mono.setStyleHint(QFont::Monospace);
  setFont(mono);
  if (cudaHighlighting) new CudaHighlighter(document());
  m_margin = new SourceMargin(this);
  connect(this, &QPlainTextEdit::blockCountChanged, this,
          [this] { setViewportMargins(marginWidth(), 0, 0, 0); });
  connect(this, &QPlainTextEdit::updateRequest, this, [this](const QRect& r, int dy) {
    if (dy)
      m_margin->scroll(0, dy);
    else
      m_margin->update(0, r.y(), m_margin->width(), r.height());
  });
  setViewportMargins(marginWidth(), 0, 0, 0);
}

int SourceView::marginWidth() const {
  int digits = 1;
  for (int n = std::max(1, blockCount()); n >= 10; n /= 10) ++digits;
  // The samples column, the line number, then the mark glyph.
  return samplesWidth() + 10 + fontMetrics().horizontalAdvance(QLatin1Char('9')) * digits +
         fontMetrics().height() + 4;
}

int SourceView::samplesWidth() const {
  for (const SourceMark& m : m_marks)
    if (m.samples > 0) return fontMetrics().horizontalAdvance(QStringLiteral("100.0%")) + 8;
  return 0;
}

QString SourceView::samplesText(int line) const {
  const auto it = m_marks.find(line);
  if (it == m_marks.end() || it->samples <= 0) return {};
  return QStringLiteral("%1%").arg(
      QString::number(100.0 * it->sampleShare, 'f', it->sampleShare < 0.1 ? 1 : 0));
}

void SourceView::setMarks(QMap<int, SourceMark> marks) {
  m_marks = std::move(marks);
  // The samples column comes and goes with the marks.
  setViewportMargins(marginWidth(), 0, 0, 0);
  const QRect cr = contentsRect();
  m_margin->setGeometry(QRect(cr.left(), cr.top(), marginWidth(), cr.height()));
  m_margin->update();
}

QColor SourceView::inactiveColor() const {
  // Between the text and the page: read as "compiled out", still legible.
  const QColor fg = palette().color(QPalette::Text), bg = palette().color(QPalette::Base);
  return QColor((fg.red() + 2 * bg.red()) / 3, (fg.green() + 2 * bg.green()) / 3,
                (fg.blue() + 2 * bg.blue()) / 3);
}

void SourceView::setInactiveLines(QSet<int> lines) {
  m_inactive = std::move(lines);
  applySelections();
}

void SourceView::applySelections() {
  // The inactive branches greyed, then the line of interest tinted over them.
  QList<QTextEdit::ExtraSelection> sels;
  const QColor grey = inactiveColor();
  for (QTextBlock b = document()->begin(); b.isValid(); b = b.next()) {
    if (!m_inactive.contains(b.blockNumber() + 1)) continue;
    QTextEdit::ExtraSelection sel;
    sel.format.setForeground(grey);
    sel.cursor = QTextCursor(b);
    sel.cursor.movePosition(QTextCursor::EndOfBlock, QTextCursor::KeepAnchor);
    sels << sel;
  }
  for (int line : std::as_const(m_related)) {
    const QTextBlock b = document()->findBlockByNumber(line - 1);
    if (line < 1 || !b.isValid()) continue;
    QTextEdit::ExtraSelection sel;
    sel.format.setBackground(relatedColor());
    sel.format.setProperty(QTextFormat::FullWidthSelection, true);
    sel.cursor = QTextCursor(b);
    sels << sel;
  }
  const QTextBlock block = document()->findBlockByNumber(m_line - 1);
  if (m_line >= 1 && block.isValid()) {
    QTextEdit::ExtraSelection sel;
    sel.format.setBackground(
        QColor(0xf0, 0xe4, 0x42, 110));  // Okabe–Ito yellow, light: text keeps its contrast
    sel.format.setProperty(QTextFormat::FullWidthSelection, true);
    sel.cursor = QTextCursor(block);
    sels << sel;
  }
  setExtraSelections(sels);
}

bool SourceView::showLine(int line) {
  const QTextBlock block = document()->findBlockByNumber(line - 1);
  if (line < 1 || !block.isValid()) return false;
  m_line = line;
  applySelections();
  setTextCursor(QTextCursor(block));
  centerCursor();
  m_margin->update();
  return true;
}

int SourceView::cursorLine() const { return textCursor().blockNumber() + 1; }

QColor SourceView::relatedColor() { return QColor(0x56, 0xb4, 0xe9, 70); }

void SourceView::setRelatedLines(QList<int> lines) {
  if (lines == m_related) return;
  m_related = std::move(lines);
  applySelections();
}

int SourceView::firstVisibleLine() const { return firstVisibleBlock().blockNumber() + 1; }

int SourceView::lineAt(int y) const {
  for (QTextBlock b = firstVisibleBlock(); b.isValid(); b = b.next()) {
    const QRectF r = blockBoundingGeometry(b).translated(contentOffset());
    if (r.top() > y) break;
    if (y < r.bottom()) return b.blockNumber() + 1;
  }
  return -1;
}

void SourceView::resizeEvent(QResizeEvent* event) {
  QPlainTextEdit::resizeEvent(event);
  const QRect cr = contentsRect();
  m_margin->setGeometry(QRect(cr.left(), cr.top(), marginWidth(), cr.height()));
}

void SourceView::paintEvent(QPaintEvent* event) {
  QPlainTextEdit::paintEvent(event);
  // Each mark's tag after its line's text, in the placeholder colour: read without a hover.
  bool any = false;
  for (const SourceMark& m : std::as_const(m_marks)) any = any || !m.tag.isEmpty();
  if (!any) return;
  QPainter p(viewport());
  QFont f = font();
  f.setItalic(true);
  p.setFont(f);
  for (QTextBlock b = firstVisibleBlock(); b.isValid(); b = b.next()) {
    const QRectF r = blockBoundingGeometry(b).translated(contentOffset());
    if (r.top() > event->rect().bottom()) break;
    const auto it = m_marks.find(b.blockNumber() + 1);
    if (!b.isVisible() || it == m_marks.end() || it->tag.isEmpty()) continue;
    // The laid-out line's width: tabs expanded as drawn.
    const QTextLine line = b.layout() ? b.layout()->lineAt(0) : QTextLine();
    const qreal x = r.left() + (line.isValid() ? line.x() + line.naturalTextWidth() : 0) +
                    fontMetrics().horizontalAdvance(QLatin1Char(' ')) * 3;
    const qreal w = QFontMetricsF(f).horizontalAdvance(it->tag) + 6;
    p.setPen(it->severity >= 2 ? oobColor(true).darker(130) : palette().color(QPalette::PlaceholderText));
    p.drawText(QRectF(x, r.top(), w, r.height()), Qt::AlignLeft | Qt::AlignVCenter, it->tag);
  }
}

void SourceView::paintSamples(QPainter& p, const QRectF& r, int line, double maxShare) {
  const auto it = m_marks.find(line);
  if (it == m_marks.end() || it->samples <= 0) return;
  // A bar as long as the line's share of the hottest line's, the share written over it.
  const int w = samplesWidth() - 6;
  const QColor hot = oobColor(false);
  p.fillRect(
      QRectF(2, r.top() + 2, std::max(2.0, w * it->sampleShare / std::max(maxShare, 1e-9)), r.height() - 4),
      QColor(hot.red(), hot.green(), hot.blue(), 90));
  p.setPen(palette().color(QPalette::WindowText));
  p.drawText(QRectF(2, r.top(), w, r.height()), Qt::AlignRight | Qt::AlignVCenter, samplesText(line));
}

void SourceView::paintMargin(QPaintEvent* event) {
  QPainter p(m_margin);
  p.fillRect(event->rect(), palette().color(QPalette::AlternateBase));
  const int glyph = fontMetrics().height();
  const int numberRight = m_margin->width() - glyph - 6;
  double maxShare = 0;
  for (const SourceMark& m : std::as_const(m_marks)) maxShare = std::max(maxShare, m.sampleShare);
  for (QTextBlock b = firstVisibleBlock(); b.isValid(); b = b.next()) {
    const QRectF r = blockBoundingGeometry(b).translated(contentOffset());
    if (r.top() > event->rect().bottom()) break;
    if (!b.isVisible() || r.bottom() < event->rect().top()) continue;
    const int line = b.blockNumber() + 1;
    QFont f = font();
    f.setBold(line == m_line);
    p.setFont(f);
    p.setPen(palette().color(line == m_line ? QPalette::WindowText : QPalette::PlaceholderText));
    p.drawText(QRect(0, static_cast<int>(r.top()), numberRight, static_cast<int>(r.height())),
               Qt::AlignRight | Qt::AlignVCenter, QString::number(line));
    p.setFont(font());
    paintSamples(p, r, line, maxShare);
    const auto it = m_marks.find(line);
    if (it == m_marks.end() || !it->glyph) continue;
    // A filled circle with a glyph: severity reads from the glyph as well as the colour.
    static const char* glyphs[] = {"i", "!", "\u2716"};
    const int sev = std::clamp(it->severity, 0, 2);
    const QColor fill = sev == 2   ? oobColor(true)
                        : sev == 1 ? verdictColor(Verdict::slow)
                                   : stateColor(kStateOverlapped);
    const QRectF dot(numberRight + 4, r.top() + (r.height() - glyph) / 2 + 1, glyph - 2, glyph - 2);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(Qt::NoPen);
    p.setBrush(fill);
    p.drawEllipse(dot);
    p.setPen(textColorOn(fill));
    QFont g = font();
    g.setBold(true);
    g.setPixelSize(std::max(8, glyph - 6));
    p.setFont(g);
    p.drawText(dot, Qt::AlignCenter, QString::fromUtf8(glyphs[sev]));
  }
}

}  // namespace tilescope::ui
