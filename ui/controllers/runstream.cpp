#include "controllers/runstream.h"

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
  std::optional<StreamEvent> read;
  try {
    read = parseStreamEvent(std::string_view(line.constData(), static_cast<std::size_t>(line.size())));
  } catch (const StreamError& e) {
    emit streamFailed(QString::fromUtf8(e.what()));
    return;
  }
  if (!read) {
    emit textAvailable(QString::fromUtf8(line));  // a wrapper's text, or JSON of another schema
    return;
  }
  const StreamEvent& e = *read;
  if (const auto* p = std::get_if<ProgressEvent>(&e.body)) {
    onProgress(*p, e.tags);
  } else if (const auto* pe = std::get_if<PointEvent>(&e.body)) {
    Point p = pe->point;
    // diagnose tags its workers' events with the experiment they belong to.
    if (p.experiment.empty()) p.experiment = e.tags.experiment;
    ++m_points;
    emit pointAvailable(p);
    if (e.tags.total)
      emit progressAvailable(m_points, static_cast<int>(*e.tags.total),
                             tr("%1 trial %2: %3")
                                 .arg(QString::fromStdString(p.label))
                                 .arg(p.trial)
                                 .arg(QString::fromLatin1(verdictName(p.verdict))));
  } else if (const auto* r = std::get_if<ReportEvent>(&e.body)) {
    emit reportAvailable(std::make_shared<const Report>(r->report));
  } else if (const auto* ph = std::get_if<PhaseEvent>(&e.body)) {
    emit textAvailable(tr("phase: %1").arg(QString::fromLatin1(phaseName(ph->phase))));
  } else if (const auto* d = std::get_if<DeviceEvent>(&e.body)) {
    emit textAvailable(tr("device: %1").arg(QString::fromStdString(d->device.name)));
  } else if (const auto* ce = std::get_if<CaptureEvent>(&e.body)) {
    emit captureEventAvailable(*ce);
  } else if (const auto* done = std::get_if<CaptureDoneEvent>(&e.body)) {
    onCaptureDone(*done);
  } else if (const auto* c = std::get_if<PartialEvent>(&e.body)) {
    emit textAvailable(
        tr("capture of %1 kept before the profiling pass (verdict %2)")
            .arg(QString::fromStdString(c->point.label), QString::fromLatin1(verdictName(c->point.verdict))));
  }
}

void RunStream::onProgress(const ProgressEvent& p, const StreamTags& tags) {
  const QString message = QString::fromStdString(p.message);
  if (p.maxCaptures) {
    // diagnose: capture N of at most M starts (N - 1 done; it stops early
    // once conclusive).
    m_maxCaptures = *p.maxCaptures;
    emit progressAvailable(std::max(p.capture.value_or(m_points + 1) - 1, m_points), m_maxCaptures, message);
    return;
  }
  // The session's point_index is the point the message is about; under
  // diagnose, a worker's own progress counts against the capture limit.
  const int point = tags.pointIndex.value_or(m_points);
  emit progressAvailable(std::max(point, m_points),
                         tags.total ? static_cast<int>(*tags.total) : m_maxCaptures, message);
}

void RunStream::onCaptureDone(const CaptureDoneEvent& done) {
  // capture.json's own reader (the capture layer's): the codec keeps it as JSON.
  CaptureInfo info;
  try {
    info = captureInfoFromJson(done.capture);
  } catch (const std::exception& x) {
    emit streamFailed(tr("stream event 'capture_done': capture: %1").arg(QString::fromUtf8(x.what())));
    return;
  }
  emit captureFinished(QString::fromStdString(done.dir), info);
}

}  // namespace tilescope::ui
