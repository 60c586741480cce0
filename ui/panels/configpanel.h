// The kernel config (an opened .tscfg.json, or the config a report was run with)
// as a form (kernel defines or a Triton kernel's constexprs, num_warps and
// num_stages, params, tensor shapes, launch, tiles) and as JSON text, which keeps
// the file's key order. Every edit re-runs core's validation (parseConfig) at
// once and the check (CheckController: the declared-only analysis on a thread,
// then `tilescope-run check` compiling every point) in the background; errors
// show at their JSON path. The window never waits for either.
#pragma once

#include <QWidget>

#include <nlohmann/json.hpp>

#include "reportview.h"

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QTabWidget;
class QTimer;
class QTreeWidget;
class QTreeWidgetItem;

namespace tilescope::ui {

class CheckController;

class ConfigPanel : public QWidget, public ReportView {
  Q_OBJECT
 public:
  explicit ConfigPanel(Selection* selection, QWidget* parent = nullptr);

  /// Loads a config file; false (with the error shown, loadError() naming the path
  /// and the problem) when it cannot be read. Any content loads without a crash:
  /// a JSON error or a value of the wrong type is a validation error.
  bool openConfig(const QString& path);
  QString loadError() const { return m_loadError; }
  bool save(const QString& path);
  QString configPath() const { return m_path; }
  /// Replaces the JSON text (as if typed) and validates at once; the check follows.
  void setJsonText(const QString& text);
  QString jsonText() const;
  /// Sets the value at a form path ("kernel.defines.BLOCK_M") as if edited in the form.
  bool setFormValue(const QString& jsonPath, const QString& text);
  /// "" when valid; else "PATH: problem". An expression's error arrives with the check.
  QString validationError() const { return m_error; }
  /// The line under the editor (valid, checking, compiled, the error, or a note).
  QString statusText() const;
  QString errorPath() const { return m_errorPath; }
  /// The form rows marked red for the error: the fields to change (configFaultPaths),
  /// "kernel.defines.BLOCK_M" for an error that surfaced at "launch.grid[1]".
  QStringList faultPaths() const { return m_faultPaths; }
  QTreeWidget* form() const { return m_form; }
  /// The form item showing jsonPath, or nullptr.
  QTreeWidgetItem* formItem(const QString& jsonPath) const;
  /// The device the config is checked against (a database key, "h100" by default).
  QString device() const;
  void setDevice(const QString& key);
  /// The last check of a config that evaluates (declared-only, then compiled), or null.
  ReportPtr checkReport() const { return m_check; }
  /// Checks again now (Run ▸ Check): the analysis, then the compile.
  void recheck();
  /// A check (the analysis or the compile) is under way.
  bool isChecking() const;
  /// The check's compile has reported: the shown check has registers and compile errors.
  bool isCompiled() const { return m_compiled; }
  CheckController* checker() const { return m_checker; }
  /// The text differs from what was opened or last saved (the file's).
  bool isModified() const { return m_modified; }
  /// Where a report's config looks for its kernel source (the report's folder, the
  /// zoo's kernels/ folders): the folder relative paths resolve against.
  void setSourceDirs(const QStringList& dirs) { m_sourceDirs = dirs; }

  void onReportLoaded(const ReportPtr& report) override;
  void onReportClosed() override;
  void onSelectionChanged(const SelectionState& state) override;

 signals:
  /// The config was validated: parsed and, when it parses, evaluated by the analysis.
  void validationFinished(bool ok, const QString& message);
  /// A config that evaluates was checked (declared-only first, compiled when that
  /// arrives): the views can show its tiles, masks, occupancy and resources.
  void checkAvailable(const tilescope::ui::ReportPtr& report);
  void modifiedChanged(bool modified);
  /// The user changed the config (text or form): a result shown for it is stale.
  void edited();

 private:
  void setDocument(const nlohmann::ordered_json& doc, const QString& dir);
  void rebuildForm();
  void parseText();
  void validate();
  void markError();
  void updateStatus();
  void setModified(bool modified);
  void setupConnections();
  QString resolveDir(const nlohmann::ordered_json& doc, const QString& fallback) const;
  QString compiledSummary() const;

  Selection* m_selection;
  CheckController* m_checker;
  QString m_path;
  QString m_dir;
  QString m_savedText;
  QStringList m_sourceDirs;
  nlohmann::ordered_json m_doc;
  QString m_error, m_errorPath, m_loadError;
  QString m_progress;     ///< the compile's progress line, or ""
  QString m_compileNote;  ///< why the compile did not run or report, or ""
  bool m_updating = false;
  bool m_fromReport = false;  ///< the text is a loaded report's config, not an opened file
  bool m_compiled = false;
  nlohmann::ordered_json m_lastGood;  ///< the document of the last check without an error
  QStringList m_faultPaths;           ///< markError()'s red rows
  bool m_modified = false;
  QTabWidget* m_tabs;
  QTreeWidget* m_form;
  QPlainTextEdit* m_text;
  QLabel* m_status;
  QTimer* m_debounce;
  QComboBox* m_device;
  ReportPtr m_check;
};

}  // namespace tilescope::ui
