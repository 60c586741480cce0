// The kernel config (an opened .tscfg.json, or the config a report was run with)
// as a form (kernel defines / tile parameters, params, tensor shapes, launch,
// tiles) and as JSON text. Every edit re-runs core's validation (parseConfig, the
// sweep points' expressions, the selected device's launch limits: configcheck.h)
// and shows the error at its JSON path; a config that evaluates is also checked.
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
  /// Replaces the JSON text (as if typed) and validates at once.
  void setJsonText(const QString& text);
  QString jsonText() const;
  /// Sets the value at a form path ("kernel.defines.BLOCK_M") as if edited in the form.
  bool setFormValue(const QString& jsonPath, const QString& text);
  /// "" when valid; else "PATH: problem".
  QString validationError() const { return m_error; }
  /// The line under the editor (valid, the error, or a note).
  QString statusText() const;
  QString errorPath() const { return m_errorPath; }
  QTreeWidget* form() const { return m_form; }
  /// The form item showing jsonPath, or nullptr.
  QTreeWidgetItem* formItem(const QString& jsonPath) const;
  /// The device the config is checked against (a database key, "h100" by default).
  QString device() const;
  void setDevice(const QString& key);
  /// The last check of a config that evaluates (static analysis, no GPU), or null.
  ReportPtr checkReport() const { return m_check; }

  void onReportLoaded(const ReportPtr& report) override;
  void onReportClosed() override;
  void onSelectionChanged(const SelectionState& state) override;

 signals:
  void validationFinished(bool ok, const QString& message);
  /// A config that evaluates was checked (on open, on each edit once typing pauses,
  /// on a device change): the views can show its declared tiles, masks and occupancy.
  void checkAvailable(const tilescope::ui::ReportPtr& report);

 private:
  void setDocument(const nlohmann::json& doc, const QString& dir);
  void rebuildForm();
  void parseText();
  void validate();
  void markError();

  Selection* m_selection;
  QString m_path;
  QString m_dir;
  nlohmann::json m_doc;
  QString m_error, m_errorPath, m_loadError;
  bool m_updating = false;
  bool m_fromReport = false;  ///< the text is a loaded report's config, not an opened file
  QTabWidget* m_tabs;
  QTreeWidget* m_form;
  QPlainTextEdit* m_text;
  QLabel* m_status;
  QTimer* m_debounce;
  QComboBox* m_device;
  ReportPtr m_check;
};

}  // namespace tilescope::ui
