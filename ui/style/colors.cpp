#include "style/colors.h"

#include <QPainter>
#include <QPixmap>
#include <algorithm>
#include <cmath>

namespace tilescope::ui {

// The Okabe–Ito palette (Okabe & Ito 2008, "Color Universal Design"): eight
// colours that stay distinct under protanopia, deuteranopia and tritanopia.
namespace okabeito {
const QColor orange(0xe6, 0x9f, 0x00), skyBlue(0x56, 0xb4, 0xe9), bluishGreen(0x00, 0x9e, 0x73),
    yellow(0xf0, 0xe4, 0x42), blue(0x00, 0x72, 0xb2), vermillion(0xd5, 0x5e, 0x00),
    reddishPurple(0xcc, 0x79, 0xa7);
}  // namespace okabeito

QColor verdictColor(Verdict v) {
  using namespace okabeito;
  switch (v) {
    case Verdict::ok:
      return bluishGreen;
    case Verdict::slow:
      return yellow;
    case Verdict::incorrect:
      return orange;
    case Verdict::hang:
      return skyBlue;
    case Verdict::fault:
      return vermillion;
    case Verdict::launch_error:
      return reddishPurple;
    case Verdict::compile_error:
      return QColor(0x55, 0x55, 0x55);
  }
  return Qt::gray;
}

QColor textColorOn(const QColor& background) {
  // Near-black or white, whichever reads better (every palette colour reaches 4.5:1 with one).
  const QColor dark(0x1a, 0x1a, 0x1a), light(Qt::white);
  return contrastRatio(background, dark) >= contrastRatio(background, light) ? dark : light;
}

QColor stateColor(int state) {
  using namespace okabeito;
  switch (state) {
    case kStateOk:
      return bluishGreen;
    case kStateMismatch:
      return orange;
    case kStateUnwritten:
      return QColor(0x33, 0x33, 0x33);
    case kStateNanInf:
      return reddishPurple;
    case kStateOverlapped:
      return skyBlue;
    case kStateOob:
      return vermillion;
    default:
      return QColor(0xc8, 0xc8, 0xc8);
  }
}

Qt::BrushStyle stateHatch(int state) {
  // The second channel: states that need a look carry a pattern, so they read in
  // greyscale and for every colour vision. Correct and "no data" stay plain.
  switch (state) {
    case kStateMismatch:
      return Qt::BDiagPattern;
    case kStateUnwritten:
      return Qt::Dense6Pattern;
    case kStateNanInf:
      return Qt::CrossPattern;
    case kStateOverlapped:
      return Qt::HorPattern;
    case kStateOob:
      return Qt::DiagCrossPattern;
    default:
      return Qt::NoBrush;
  }
}

QColor stateHatchColor(int state) {
  return state == kStateUnwritten ? QColor(0xbb, 0xbb, 0xbb) : QColor(0x1a, 0x1a, 0x1a);
}

QColor oobColor(bool write) { return write ? okabeito::vermillion : okabeito::orange; }

QColor oobHatchColor() { return QColor(0x1a, 0x1a, 0x1a); }

QString stateName(int state) {
  switch (state) {
    case kStateOk:
      return QStringLiteral("correct");
    case kStateMismatch:
      return QStringLiteral("mismatched");
    case kStateUnwritten:
      return QStringLiteral("unwritten");
    case kStateNanInf:
      return QStringLiteral("NaN/Inf");
    case kStateOverlapped:
      return QStringLiteral("overlapped");
    case kStateOob:
      return QStringLiteral("out of bounds");
    default:
      return QStringLiteral("no data");
  }
}

int stateSeverity(int state) {
  // Order in which a person fixes things: faults past the end first, then holes,
  // then garbage values, then double writes, then plain mismatches.
  switch (state) {
    case kStateOob:
      return 6;
    case kStateUnwritten:
      return 5;
    case kStateNanInf:
      return 4;
    case kStateOverlapped:
      return 3;
    case kStateMismatch:
      return 2;
    case kStateOk:
      return 1;
    default:
      return 0;
  }
}

QColor checkedColor() { return QColor(0xdd, 0xdd, 0xdd); }

BannerColors bannerColors(int kind, bool dark) {
  // Tints of bluish green, sky blue, yellow and vermillion; on a dark window the same
  // hues deep, under light text, so a banner is not the brightest thing on the screen.
  static const QColor bg[] = {QColor(0xd4, 0xef, 0xe6), QColor(0xdd, 0xef, 0xfa), QColor(0xfc, 0xf7, 0xc8),
                              QColor(0xf7, 0xdd, 0xcc)};
  static const QColor deep[] = {QColor(0x12, 0x3d, 0x31), QColor(0x15, 0x35, 0x4d), QColor(0x45, 0x3e, 0x0c),
                                QColor(0x52, 0x22, 0x0e)};
  const int k = std::clamp(kind, 0, 3);
  return dark ? BannerColors{deep[k], QColor(0xf0, 0xf0, 0xf0)}
              : BannerColors{bg[k], QColor(0x1a, 0x1a, 0x1a)};
}

QColor gpuTint(int i) {
  // Tints of sky blue, orange, bluish green, reddish purple, yellow, blue.
  static const QColor tints[] = {QColor(0xdd, 0xef, 0xfa), QColor(0xfc, 0xe9, 0xc4),
                                 QColor(0xd4, 0xef, 0xe6), QColor(0xf2, 0xdd, 0xe8),
                                 QColor(0xfc, 0xf7, 0xc8), QColor(0xcc, 0xe0, 0xf0)};
  return tints[static_cast<std::size_t>(std::max(i, 0)) % std::size(tints)];
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
