#include "style/palettes.h"

#include <QApplication>
#include <QStyleFactory>

namespace tilescope::ui {

QPalette lightPalette() {
  QPalette p;
  p.setColor(QPalette::Window, QColor(0xf3, 0xf3, 0xf3));
  p.setColor(QPalette::WindowText, Qt::black);
  p.setColor(QPalette::Base, Qt::white);
  p.setColor(QPalette::AlternateBase, QColor(0xf7, 0xf7, 0xf7));
  p.setColor(QPalette::ToolTipBase, QColor(0xff, 0xff, 0xdc));
  p.setColor(QPalette::ToolTipText, Qt::black);
  p.setColor(QPalette::Text, Qt::black);
  p.setColor(QPalette::Button, QColor(0xea, 0xea, 0xea));
  p.setColor(QPalette::ButtonText, Qt::black);
  p.setColor(QPalette::Highlight, QColor(0x30, 0x8c, 0xc6));
  p.setColor(QPalette::HighlightedText, Qt::white);
  p.setColor(QPalette::Link, QColor(0x1a, 0x5f, 0xb4));
  p.setColor(QPalette::PlaceholderText, QColor(0x80, 0x80, 0x80));
  // setColor(role, ...) sets every group: without these a disabled button read as enabled.
  for (auto role : {QPalette::Text, QPalette::ButtonText, QPalette::WindowText})
    p.setColor(QPalette::Disabled, role, QColor(0xa0, 0xa0, 0xa0));
  p.setColor(QPalette::Disabled, QPalette::Button, QColor(0xf0, 0xf0, 0xf0));
  return p;
}

QPalette darkPalette() {
  QPalette p;
  const QColor window(0x2b, 0x2b, 0x2b), base(0x1e, 0x1e, 0x1e), text(0xdc, 0xdc, 0xdc);
  p.setColor(QPalette::Window, window);
  p.setColor(QPalette::WindowText, text);
  p.setColor(QPalette::Base, base);
  p.setColor(QPalette::AlternateBase, QColor(0x26, 0x26, 0x26));
  p.setColor(QPalette::ToolTipBase, QColor(0x3c, 0x3c, 0x3c));
  p.setColor(QPalette::ToolTipText, text);
  p.setColor(QPalette::Text, text);
  p.setColor(QPalette::Button, QColor(0x35, 0x35, 0x35));
  p.setColor(QPalette::ButtonText, text);
  p.setColor(QPalette::BrightText, Qt::red);
  p.setColor(QPalette::Highlight, QColor(0x2a, 0x82, 0xda));
  p.setColor(QPalette::HighlightedText, Qt::white);
  p.setColor(QPalette::Link, QColor(0x6a, 0xb0, 0xf3));
  p.setColor(QPalette::PlaceholderText, QColor(0x90, 0x90, 0x90));
  p.setColor(QPalette::Disabled, QPalette::Text, QColor(0x7f, 0x7f, 0x7f));
  p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0x7f, 0x7f, 0x7f));
  p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(0x7f, 0x7f, 0x7f));
  return p;
}

void applyTheme(Theme theme) {
  if (QStyle* fusion = QStyleFactory::create(QStringLiteral("Fusion"))) QApplication::setStyle(fusion);
  QApplication::setPalette(theme == Theme::dark ? darkPalette() : lightPalette());
}

Theme themeFromName(const QString& name) {
  return name == QLatin1String("dark") ? Theme::dark : Theme::light;
}

QString themeName(Theme theme) {
  return theme == Theme::dark ? QStringLiteral("dark") : QStringLiteral("light");
}

}  // namespace tilescope::ui
