// What more than one GUI test measures: how long the event loop stalls.
#pragma once

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QTimer>
#include <algorithm>
#include <functional>

namespace tilescope::ui::test {

/// The longest the event loop went without running a 5 ms timer while `busy` held (at most `ms`).
inline qint64 longestStall(const std::function<bool()>& busy, int ms) {
  QElapsedTimer total, since;
  total.start();
  since.start();
  qint64 worst = 0;
  QTimer tick;
  QObject::connect(&tick, &QTimer::timeout, [&] {
    worst = std::max(worst, since.elapsed());
    since.restart();
  });
  tick.start(5);
  while (busy() && total.elapsed() < ms) QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
  return worst;
}

}  // namespace tilescope::ui::test
