#include "widgets/banner.h"

#include <QEvent>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QTextDocument>
#include <QToolButton>

#include "style/colors.h"

namespace tilescope::ui {

Banner::Banner(QWidget* parent) : QFrame(parent) {
  setFrameShape(QFrame::StyledPanel);
  setAutoFillBackground(true);
  m_glyph = new QLabel(this);
  QFont big = m_glyph->font();
  big.setBold(true);
  big.setPointSizeF(big.pointSizeF() * 1.3);
  m_glyph->setFont(big);
  m_text = new QLabel(this);
  m_text->setWordWrap(true);
  m_text->setTextFormat(Qt::RichText);
  m_text->setTextInteractionFlags(Qt::TextBrowserInteraction);
  m_close = new QToolButton(this);
  m_close->setText(QStringLiteral("\u2715"));
  m_close->setToolTip(tr("Hide this message"));
  m_close->setAutoRaise(true);
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(8, 4, 4, 4);
  layout->addWidget(m_glyph, 0, Qt::AlignTop);
  layout->addWidget(m_text, 1);
  layout->addWidget(m_close, 0, Qt::AlignTop);
  connect(m_close, &QToolButton::clicked, this, &Banner::clearMessage);
  connect(m_text, &QLabel::linkActivated, this, &Banner::linkActivated);
  hide();
}

void Banner::showMessage(Kind kind, const QString& text) {
  m_kind = kind;
  applyColors();
  static const char* glyphs[] = {"\u2714", "\u2139", "\u26a0", "\u2716"};
  m_glyph->setText(QString::fromUtf8(glyphs[static_cast<int>(kind)]));
  m_text->setText(text);
  show();
}

bool Banner::isDark() {
  // The application's palette, not the banner's own (which applyColors() sets).
  return QGuiApplication::palette().color(QPalette::Window).lightness() < 128;
}

void Banner::applyColors() {
  const BannerColors c = bannerColors(static_cast<int>(m_kind), isDark());
  QPalette pal = palette();
  for (QPalette::ColorRole role : {QPalette::Window, QPalette::Base, QPalette::Button})
    pal.setColor(role, c.background);
  for (QPalette::ColorRole role :
       {QPalette::WindowText, QPalette::Text, QPalette::ButtonText, QPalette::Link})
    pal.setColor(role, c.text);
  setPalette(pal);
}

bool Banner::event(QEvent* event) {
  // View ▸ Dark / Light while a banner is shown: its tint follows the theme. (The
  // application's palette change reaches event(), not changeEvent(), for a widget
  // whose own palette is set.)
  const bool handled = QFrame::event(event);
  if (event->type() == QEvent::ApplicationPaletteChange) applyColors();
  return handled;
}

void Banner::clearMessage() {
  m_text->clear();
  hide();
}

QString Banner::text() const {
  if (isHidden() || m_text->text().isEmpty()) return {};
  QTextDocument doc;
  doc.setHtml(m_text->text());
  return doc.toPlainText();
}

}  // namespace tilescope::ui
