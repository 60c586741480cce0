#include "style/colors.h"

#include <QPainter>
#include <QPixmap>
#include <algorithm>
#include <cmath>

namespace tilescope::ui {

QColor verdictColor(Verdict v) {
  switch (v) {
    case Verdict::ok: return QColor(0x4c, 0xaf, 0x50);
    case Verdict::slow: return QColor(0xff, 0xc1, 0x07);
    case Verdict::incorrect: return QColor(0xff, 0x70, 0x43);
    case Verdict::hang: return QColor(0x9c, 0x27, 0xb0);
    case Verdict::fault: return QColor(0xe5, 0x39, 0x35);
    case Verdict::launch_error: return QColor(0xad, 0x14, 0x57);
    case Verdict::compile_error: return QColor(0x6d, 0x4c, 0x41);
  }
  return Qt::gray;
}

QColor stateColor(int state) {
  switch (state) {
    case kStateOk: return QColor(0x66, 0xbb, 0x6a);
    case kStateMismatch: return QColor(0xff, 0x8a, 0x65);
    case kStateUnwritten: return QColor(0x42, 0x42, 0x42);
    case kStateNanInf: return QColor(0xd5, 0x00, 0xf9);
    case kStateOverlapped: return QColor(0x29, 0xb6, 0xf6);
    case kStateOob: return QColor(0xe5, 0x39, 0x35);
    default: return QColor(0xbd, 0xbd, 0xbd);
  }
}

QColor oobColor(bool write) { return write ? QColor(0xd5, 0x5e, 0x00) : QColor(0xe6, 0x9f, 0x00); }

QColor oobHatchColor() { return QColor(0x1a, 0x1a, 0x1a); }

QString stateName(int state) {
  switch (state) {
    case kStateOk: return QStringLiteral("correct");
    case kStateMismatch: return QStringLiteral("mismatched");
    case kStateUnwritten: return QStringLiteral("unwritten");
    case kStateNanInf: return QStringLiteral("NaN/Inf");
    case kStateOverlapped: return QStringLiteral("overlapped");
    case kStateOob: return QStringLiteral("out of bounds");
    default: return QStringLiteral("no data");
  }
}

int stateSeverity(int state) {
  // Order in which a person fixes things: faults past the end first, then holes,
  // then garbage values, then double writes, then plain mismatches.
  switch (state) {
    case kStateOob: return 6;
    case kStateUnwritten: return 5;
    case kStateNanInf: return 4;
    case kStateOverlapped: return 3;
    case kStateMismatch: return 2;
    case kStateOk: return 1;
    default: return 0;
  }
}

BannerColors bannerColors(int kind) {
  // Tints of bluish green, sky blue, yellow and vermillion.
  static const QColor bg[] = {QColor(0xd4, 0xef, 0xe6), QColor(0xdd, 0xef, 0xfa), QColor(0xfc, 0xf7, 0xc8), QColor(0xf7, 0xdd, 0xcc)};
  return {bg[std::clamp(kind, 0, 3)], QColor(0x1a, 0x1a, 0x1a)};
}

double contrastRatio(const QColor& a, const QColor& b) {
  auto lum = [](const QColor& c) {
    auto ch = [](double v) { return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * ch(c.redF()) + 0.7152 * ch(c.greenF()) + 0.0722 * ch(c.blueF());
  };
  const double la = lum(a), lb = lum(b);
  return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

QIcon severityIcon(Severity s) {
  // Painted with QtGui only so that the models (QtCore/QtGui) can use it.
  static QIcon icons[3];
  const int i = static_cast<int>(s);
  if (!icons[i].isNull()) return icons[i];
  const QColor colors[3] = {QColor(0x1e, 0x88, 0xe5), QColor(0xfb, 0x8c, 0x00), QColor(0xe5, 0x39, 0x35)};
  const char* letters[3] = {"i", "!", "x"};
  QPixmap pm(16, 16);
  pm.fill(Qt::transparent);
  QPainter p(&pm);
  p.setRenderHint(QPainter::Antialiasing);
  p.setBrush(colors[i]);
  p.setPen(Qt::NoPen);
  p.drawEllipse(QRectF(1, 1, 14, 14));
  p.setPen(Qt::white);
  QFont f = p.font();
  f.setBold(true);
  f.setPixelSize(11);
  p.setFont(f);
  p.drawText(QRect(0, 0, 16, 16), Qt::AlignCenter, QString::fromLatin1(letters[i]));
  p.end();
  icons[i] = QIcon(pm);
  return icons[i];
}

}  // namespace tilescope::ui
