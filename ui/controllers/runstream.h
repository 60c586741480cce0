// The GUI's reader of `tilescope-run run|sweep|diagnose|capture --stream` stdout
// (tilescope.stream/1, read by core's codec, stream.h): lines arrive in chunks,
// each event becomes a signal; the run's `total` and diagnose's capture limit
// turn progress events into a position.
#pragma once

#include <QByteArray>
#include <QObject>
#include <QString>
#include <memory>

#include "tilescope/capture/capture.h"
#include "tilescope/model/report.h"
#include "tilescope/run/stream.h"

namespace tilescope::ui {

class RunStream : public QObject {
  Q_OBJECT
 public:
  using QObject::QObject;

  /// Feeds raw stdout bytes; complete lines are parsed, a partial line waits for the rest.
  void feed(const QByteArray& bytes);
  /// Parses whatever is left (the process ended without a final newline).
  void finish();
  void reset() {
    m_buffer.clear();
    m_points = 0;
    m_maxCaptures = 0;
  }
  int pointsSeen() const { return m_points; }

 signals:
  void progressAvailable(int point, int total, const QString& message);
  void pointAvailable(const tilescope::Point& point);
  void reportAvailable(std::shared_ptr<const tilescope::Report> report);
  /// `tilescope-run capture --stream`: a recorder inside the program recorded a
  /// launch or wrote a note.
  void captureEventAvailable(const tilescope::CaptureEvent& event);
  /// The capture folder `dir` is complete; `info` is its capture.json.
  void captureFinished(const QString& dir, const tilescope::CaptureInfo& info);
  /// A line that is not a stream event (plain text, or JSON of another schema); shown in the log.
  void textAvailable(const QString& line);
  /// A stream event that could not be read: the message names the event and the problem.
  void streamFailed(const QString& message);

 private:
  void parseLine(const QByteArray& line);
  void onProgress(const ProgressEvent& p, const StreamTags& tags);
  void onCaptureDone(const CaptureDoneEvent& done);
  QByteArray m_buffer;
  int m_points = 0;
  int m_maxCaptures = 0;  ///< diagnose: the capture limit its progress events name
};

}  // namespace tilescope::ui
