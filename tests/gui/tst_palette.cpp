// The colour-blind-safe palette (README.md#colours): measured, not assumed. A
// deuteranopia simulation (Machado, Oliveira & Fernandes 2009, severity 1) and
// CIE76 ΔE in L*a*b* between the colours a person must tell apart; WCAG 2
// contrast for text on every verdict cell; a hatch for every state that needs a look.
#include <QtTest>
#include <array>
#include <cmath>

#include "models/resultmatrixmodel.h"
#include "style/colors.h"
#include "style/palettes.h"
#include "tilescope/model/report.h"

using namespace tilescope;
using namespace tilescope::ui;

namespace {
using Vec = std::array<double, 3>;

double toLinear(double v) { return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); }

Vec deuteranope(const QColor& c) {
  static const double m[3][3] = {
      {0.367322, 0.860646, -0.227968}, {0.280085, 0.672501, 0.047413}, {-0.011820, 0.042940, 0.968881}};
  const Vec l{toLinear(c.redF()), toLinear(c.greenF()), toLinear(c.blueF())};
  Vec out{};
  for (int i = 0; i < 3; ++i)
    out[static_cast<size_t>(i)] = std::clamp(m[i][0] * l[0] + m[i][1] * l[1] + m[i][2] * l[2], 0.0, 1.0);
  return out;  // linear RGB as a deuteranope sees it
}

Vec lab(const Vec& lin) {
  const double x = (0.4124 * lin[0] + 0.3576 * lin[1] + 0.1805 * lin[2]) / 0.95047;
  const double y = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
  const double z = (0.0193 * lin[0] + 0.1192 * lin[1] + 0.9505 * lin[2]) / 1.08883;
  auto f = [](double t) { return t > 0.008856 ? std::cbrt(t) : 7.787 * t + 16.0 / 116; };
  return {116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))};
}

double deltaEDeuteranopia(const QColor& a, const QColor& b) {
  const Vec p = lab(deuteranope(a)), q = lab(deuteranope(b));
  return std::sqrt((p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) +
                   (p[2] - q[2]) * (p[2] - q[2]));
}
}  // namespace

class TstPalette : public QObject {
  Q_OBJECT

 private slots:
  void theSimulationReproducesTheReport() {
    // The issue measured ΔE ≈ 15 for the old green / salmon pair: the model agrees.
    const double old = deltaEDeuteranopia(QColor(0x66, 0xbb, 0x6a), QColor(0xff, 0x8a, 0x65));
    QVERIFY2(old > 12 && old < 17, qPrintable(QString::number(old)));
  }

  void correctAndWrongStayApart() {
    QVERIFY(deltaEDeuteranopia(stateColor(kStateOk), stateColor(kStateMismatch)) > 40);
    QVERIFY(deltaEDeuteranopia(verdictColor(Verdict::ok), verdictColor(Verdict::incorrect)) > 40);
    QVERIFY(deltaEDeuteranopia(verdictColor(Verdict::ok), verdictColor(Verdict::fault)) > 40);
    // Every pair of coverage states: distinct colours under deuteranopia...
    for (int a = 0; a < kStateCount; ++a)
      for (int b = a + 1; b < kStateCount; ++b)
        QVERIFY2(deltaEDeuteranopia(stateColor(a), stateColor(b)) > 15,
                 qPrintable(QStringLiteral("%1 / %2").arg(a).arg(b)));
  }

  void statesCarryASecondChannel() {
    // ...and every state but "correct" has its own pattern: colour never carries meaning alone.
    QCOMPARE(stateHatch(kStateOk), Qt::NoBrush);
    QSet<int> patterns;
    for (int s : {kStateMismatch, kStateUnwritten, kStateNanInf, kStateOverlapped, kStateOob}) {
      QVERIFY(stateHatch(s) != Qt::NoBrush);
      patterns.insert(static_cast<int>(stateHatch(s)));
      QVERIFY(contrastRatio(stateColor(s), stateHatchColor(s)) > 2.5);  // the pattern shows on its fill
    }
    QCOMPARE(patterns.size(), 5);
  }

  void disabledTextLooksDisabled() {
    // The light palette's disabled buttons looked enabled.
    for (const QPalette& pal : {lightPalette(), darkPalette()}) {
      for (auto role : {QPalette::ButtonText, QPalette::WindowText, QPalette::Text}) {
        const QColor on = pal.color(QPalette::Active, role), off = pal.color(QPalette::Disabled, role);
        const QColor bg = pal.color(QPalette::Active, QPalette::Window);
        // Dimmer: closer to the background than the enabled text, and still legible.
        QVERIFY2(contrastRatio(off, bg) < contrastRatio(on, bg) / 2, qPrintable(off.name()));
        QVERIFY2(contrastRatio(off, bg) >= 1.5, qPrintable(off.name()));
      }
    }
  }

  void textOnCellsMeetsWcag() {
    for (int v = 0; v <= static_cast<int>(Verdict::compile_error); ++v) {
      const QColor bg = verdictColor(static_cast<Verdict>(v));
      QVERIFY2(contrastRatio(bg, textColorOn(bg)) >= 4.5, verdictName(static_cast<Verdict>(v)));
    }
    // The sweep matrix paints its cells with those pairs, and writes the verdict as a word.
    Report r;
    Point p;
    p.verdict = Verdict::slow;
    p.label.assign(1,
                   'x');  // not `= "x"`: GCC 12 warns (-Wrestrict, a false positive) on that assignment here
    r.points.push_back(p);
    ResultMatrixModel m;
    m.setReport(r);
    const QModelIndex i = m.index(0, 0);
    const QColor bg = i.data(Qt::BackgroundRole).value<QColor>(),
                 fg = i.data(Qt::ForegroundRole).value<QColor>();
    QVERIFY2(contrastRatio(bg, fg) >= 4.5, qPrintable(QString::number(contrastRatio(bg, fg))));
    QVERIFY(i.data().toString().contains(QStringLiteral("slow")));
  }
};

QTEST_MAIN(TstPalette)
#include "tst_palette.moc"
