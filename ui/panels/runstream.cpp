#include "panels/runstream.h"

#include <algorithm>

namespace tilescope::ui {

void RunStream::feed(const QByteArray& bytes) {
  m_buffer += bytes;
  int nl;
  while ((nl = m_buffer.indexOf('\n')) >= 0) {
    const QByteArray line = m_buffer.left(nl).trimmed();
    m_buffer.remove(0, nl + 1);
    if (!line.isEmpty()) parseLine(line);
  }
}

void RunStream::finish() {
  const QByteArray rest = m_buffer.trimmed();
  m_buffer.clear();
  if (!rest.isEmpty()) parseLine(rest);
}

void RunStream::parseLine(const QByteArray& line) {
  nlohmann::json j = nlohmann::json::parse(line.constBegin(), line.constEnd(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || j.value("schema", std::string()) != kStreamSchema) {
    emit textAvailable(QString::fromUtf8(line));
    return;
  }
  const std::string event = j.value("event", std::string());
  try {
    if (event == "progress") {
      const QString message = QString::fromStdString(j.value("message", std::string()));
      if (j.contains("max_captures")) {
        // diagnose: capture N of at most M starts (N - 1 done; it stops early
        // once conclusive).
        m_maxCaptures = j.value("max_captures", 0);
        emit progressAvailable(std::max(j.value("capture", m_points + 1) - 1, m_points), m_maxCaptures, message);
        return;
      }
      // `point` (or the session's `point_index`) is the point the message is about;
      // under diagnose, a worker's own progress counts against the capture limit.
      const int point = j.contains("point") ? j.value("point", 0) : j.value("point_index", m_points);
      emit progressAvailable(std::max(point, m_points), j.value("total", m_maxCaptures), message);
    } else if (event == "point") {
      Point p = pointFromJson(j.at("point"));
      // diagnose tags its workers' events with the experiment they belong to.
      if (p.experiment.empty()) p.experiment = j.value("experiment", std::string());
      ++m_points;
      emit pointAvailable(p);
      if (j.contains("total"))
        emit progressAvailable(m_points, j.value("total", 0),
                               tr("%1 trial %2: %3").arg(QString::fromStdString(p.label)).arg(p.trial).arg(QString::fromLatin1(verdictName(p.verdict))));
    } else if (event == "report") {
      emit reportAvailable(std::make_shared<const Report>(reportFromJson(j.at("report"))));
    } else if (event == "phase") {
      emit textAvailable(tr("phase: %1").arg(QString::fromStdString(j.value("phase", std::string()))));
    } else if (event == "device") {
      emit textAvailable(tr("device: %1").arg(QString::fromStdString(j.value("device", nlohmann::json::object()).value("name", std::string()))));
    } else {
      emit textAvailable(QString::fromUtf8(line));
    }
  } catch (const std::exception& e) {
    emit streamFailed(tr("stream event '%1': %2").arg(QString::fromStdString(event), QString::fromUtf8(e.what())));
  }
}

}  // namespace tilescope::ui
