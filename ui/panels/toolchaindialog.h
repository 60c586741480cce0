// File ▸ Compare toolchains… (docs/toolchains.md): the open config compiled
// under two toolchains by `tilescope-run compare CONFIG --toolchain A
// --toolchain B` in the background; its progress in a log, then the two sides
// (compiled or not, the error at its line, registers, shared memory), the
// stages with their op counts and the first stage that differs, exportable as
// HTML or Markdown.
#pragma once

#include <QDialog>
#include <QJsonObject>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProcess;
class QPushButton;
class QTableWidget;

namespace tilescope::ui {

class ToolchainDialog : public QDialog {
  Q_OBJECT
 public:
  explicit ToolchainDialog(QWidget* parent = nullptr);
  ~ToolchainDialog() override;

  /// The config to compare, and the toolchains offered for its language
  /// (`language`: cuda | triton | tilelang).
  void setConfig(const QString& path, const QString& language);
  /// The toolchains setConfig() offered (both lists hold the same).
  QStringList offeredToolchains() const;
  QString configPath() const;
  void setToolchains(const QString& a, const QString& b);
  void setOffline(bool offline);
  /// The tilescope-run to start ("" = RunController::runExecutable()).
  void setExecutable(const QString& exe) { m_exe = exe; }

  /// tilescope-run's arguments for the form (after the executable).
  QStringList arguments(const QString& output) const;
  bool isRunning() const;
  /// The last comparison (tilescope.toolchains/1), empty before one finished.
  QJsonObject result() const { return m_result; }
  /// One line: the first differing stage, or why there is no comparison.
  QString summaryText() const;
  QTableWidget* sidesTable() const { return m_sides; }
  QTableWidget* stagesTable() const { return m_stages; }
  QString logText() const;
  /// The comparison as a document: "html" or "md".
  QString document(const QString& format) const;

 public slots:
  /// Starts the comparison; false (the summary says why) when the form is incomplete.
  bool start();
  void cancel();
  /// Writes document() in the format the extension names (.html, .md); false on failure.
  bool exportTo(const QString& path);

 signals:
  void finished();

 private:
  void appendLog(const QByteArray& bytes, bool last);
  void onFinished(int exitCode);
  void showResult();

  QString m_exe;
  QLineEdit* m_config = nullptr;
  QComboBox* m_a = nullptr;
  QComboBox* m_b = nullptr;
  QCheckBox* m_offline = nullptr;
  QPushButton* m_start = nullptr;
  QPushButton* m_export = nullptr;
  QLabel* m_summary = nullptr;
  QTableWidget* m_sides = nullptr;
  QTableWidget* m_stages = nullptr;
  QPlainTextEdit* m_log = nullptr;
  QProcess* m_proc = nullptr;
  QByteArray m_pending;  ///< output after the last whole line
  QString m_output;      ///< the comparison's JSON, written by tilescope-run
  QJsonObject m_result;
  QString m_error;  ///< why the last comparison gave nothing
};

}  // namespace tilescope::ui
