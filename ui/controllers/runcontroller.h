// Owns a run of tilescope-run (hotspot's PerfRecord beside its RecordPage): the
// command line (local, `--remote HOST` or `--slurm`), the QProcess, the stream
// reader, and what the run's end means. RunPanel only displays what it reports.
#pragma once

#include <QObject>
#include <QProcess>
#include <QStringList>
#include <memory>

#include "tilescope/model/report.h"

namespace tilescope::ui {

class RunStream;

class RunController : public QObject {
  Q_OBJECT
 public:
  explicit RunController(QObject* parent = nullptr);
  ~RunController() override;

  void setConfigPath(const QString& path) { m_configPath = path; }
  QString configPath() const { return m_configPath; }
  /// "" = run locally; else runs go through `ssh HOST`.
  void setRemoteHost(const QString& host);
  QString remoteHost() const { return m_remoteHost; }
  /// Sweeps go to Slurm (`sweep --slurm`, docs/cli.md) instead of this machine or
  /// the remote host; run and diagnose have no Slurm form (no command line).
  void setSlurm(bool on);
  bool slurm() const { return m_slurm; }
  /// Options for every sbatch of a Slurm sweep ("--gres=gpu:1 --partition=gpu").
  void setSbatchOptions(const QString& options);
  QString sbatchOptions() const { return m_sbatchOptions; }
  /// The tilescope-run to start: next to this executable, else on PATH.
  static QString runExecutable();
  /// `cmd` as one line that pastes into a POSIX shell and runs the same program with
  /// the same arguments: a word with a space, a quote or a shell character is
  /// single-quoted (shellQuote), the others stay bare.
  static QString shellCommandLine(const QStringList& cmd);
  /// For tests: another tilescope-run ("" = runExecutable()).
  void setRunExecutable(const QString& path) { m_exe = path; }
  /// Program and arguments of a run of `verb` ("run", "sweep" or "diagnose"). Over
  /// ssh the arguments are quoted for the remote shell; empty for a host ssh would misread.
  QStringList commandLine(const QString& verb) const;
  bool isRunning() const;
  /// The verb of the current (or last) run.
  QString verb() const { return m_verb; }
  RunStream* stream() const { return m_stream; }
  /// The message for a run that ended with `code` (normal exit), or "" when it succeeded;
  /// `stderrTail` is the last lines tilescope-run (or ssh) wrote.
  static QString failureMessage(const QString& verb, int code, bool gotReport, const QString& stderrTail,
                                bool remote);

 public slots:
  void start(const QString& verb);
  /// `tilescope-run capture ARGUMENTS` (docs/capture.md): no config; the
  /// arguments hold --stream, -o and the program after `--`. Its stream's
  /// `capture_done` stands for the report: RunStream::captureFinished.
  void startCapture(const QStringList& arguments);
  /// Stops the run. A capture or a Slurm sweep gets SIGTERM first, so that it
  /// stops what it started (the program, the jobs) and says how it ended.
  void cancel();

 signals:
  void runStarted(const QString& verb);
  /// The command line, stderr text and stream lines that are not events: the run's log.
  void logAvailable(const QString& text);
  /// The final report of a run arrived.
  void reportAvailable(std::shared_ptr<const tilescope::Report> report);
  void runCancelled();
  /// Exit status of the process (-1 when it crashed); after runFailed or runCancelled when those apply.
  void runFinished(int exitCode);
  /// Every way a run can fail: not started, crashed, an exit status other than 0/1,
  /// ssh's own failure (255), a stream event that cannot be read, or no report in the stream.
  void runFailed(const QString& message);
  void runningChanged(bool running);
  void remoteHostChanged(const QString& host);
  void slurmChanged(bool on);

 private:
  void launch(const QString& verb, const QStringList& cmd);
  void finished(int code, QProcess::ExitStatus status);
  /// stderr into the log a whole line at a time (`last`: the rest, at the end).
  void takeStderr(const QByteArray& bytes, bool last);
  void setRunning(bool running);

  QString m_configPath;
  QString m_remoteHost;
  bool m_slurm = false;
  QString m_sbatchOptions;
  QString m_exe;
  QProcess* m_process = nullptr;
  bool m_running = false;  ///< from start() until the process ended or failed to start
  RunStream* m_stream;
  QString m_verb;
  QStringList m_stderrTail;    ///< last lines of stderr, for the failure message
  QByteArray m_stderrPending;  ///< stderr after its last newline, until the rest of the line comes
  bool m_gotReport = false;
  bool m_cancelled = false;
};

}  // namespace tilescope::ui
