#include "panels/runstream.h"

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
      emit progressAvailable(j.value("point", 0), j.value("total", 0), QString::fromStdString(j.value("message", std::string())));
    } else if (event == "point") {
      emit pointAvailable(pointFromJson(j.at("point")));
    } else if (event == "report") {
      emit reportAvailable(std::make_shared<const Report>(reportFromJson(j.at("report"))));
    } else {
      emit textAvailable(QString::fromUtf8(line));
    }
  } catch (const std::exception& e) {
    emit streamFailed(tr("stream event '%1': %2").arg(QString::fromStdString(event), QString::fromUtf8(e.what())));
  }
}

}  // namespace tilescope::ui
