// Check in the workbench gives the CLI's answer without blocking the window
// (README.md, "The workbench"): first the declared-only analysis of
// the config's sweep points (tiles, masks, shared memory, occupancy for a
// device of the database) on a worker thread, then `tilescope-run check FILE
// --device KEY -o -` as a child process, which compiles every point (NVRTC,
// nvcc, Triton's or TileLang's compiler) and reads registers, spills and shared
// memory: the same core path as the command line. Its report replaces the
// declared-only one when it arrives; progress is read from its stderr. The GUI
// never links CUDA. ConfigPanel shows what this controller reports.
#pragma once

#include <QObject>
#include <QProcess>
#include <QStringList>
#include <memory>
#include <optional>

#include "reportview.h"
#include "tilescope/config/config.h"

class QTemporaryFile;

namespace tilescope::ui {

class CheckController : public QObject {
  Q_OBJECT
 public:
  explicit CheckController(QObject* parent = nullptr);
  ~CheckController() override;

  /// Checks `cfg` on `deviceKey`: the declared-only analysis at once (a thread),
  /// then, when `compileFile` is a config file, the compiled check (a child
  /// process). A newer request supersedes an older one: its results are dropped
  /// and its process is stopped. `compileText` is the config's text as edited:
  /// where it differs from the file's, a hidden copy beside the file is checked
  /// (relative paths keep their meaning).
  void start(const Config& cfg, const QString& deviceKey, const QString& compileFile = {},
             const QString& compileText = {});
  /// Drops the pending results and stops the process.
  void cancel();
  /// A check is in flight (the analysis or the compile).
  bool isRunning() const { return m_analysing || isCompiling(); }
  bool isCompiling() const;
  /// Sweep points the compile has reached / will compile (0 / 0 when none runs).
  int compiledPoints() const { return m_compiled; }
  int compileTotal() const { return m_total; }
  /// The program and arguments of the compiled check.
  static QStringList commandLine(const QString& configFile, const QString& deviceKey);
  /// Where the tilescope-run the workbench starts is (RunController::runExecutable()).
  static QString runExecutable();
  /// For tests: another tilescope-run ("" = the default).
  void setRunExecutable(const QString& path) { m_exe = path; }

 signals:
  /// The declared-only check: one point per sweep point (at most kMaxCheckedPoints),
  /// `error` the first launch limit the device refuses ("PATH: problem", "" when none).
  void staticCheckAvailable(const tilescope::ui::ReportPtr& report, const QString& error,
                            const QString& errorPath);
  /// An expression that does not evaluate (ConfigError: its JSON path), or an unknown device.
  void staticCheckFailed(const QString& message, const QString& errorPath);
  /// The compile reached point `done` of `total` ("check NAME [label] on DEVICE").
  void compileProgress(int done, int total, const QString& message);
  /// The compiled check, as `tilescope-run check` reports it.
  void compiledCheckAvailable(const tilescope::ui::ReportPtr& report);
  /// The compiled check could not run or ended without a report (the message says why).
  void compileFailed(const QString& message);
  void runningChanged(bool running);

 private:
  void analyse();
  void startCompile();
  void compileFinished(int code, QProcess::ExitStatus status);
  void stopProcess();

  struct Request {
    Config config;
    QString device, file, text;
  };
  int m_generation = 0;
  bool m_analysing = false;
  std::optional<Request> m_pending;  ///< the newest request while an analysis runs
  Request m_current;
  QProcess* m_process = nullptr;
  QTemporaryFile* m_copy = nullptr;
  QByteArray m_stdout;
  QString m_stderrTail;
  int m_compiled = 0, m_total = 0;
  QString m_exe;
};

}  // namespace tilescope::ui
