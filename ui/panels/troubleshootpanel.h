// The troubleshooting tree (resources/tree.json) walked over the open report: the
// path the evidence decided, highlighted with each step's facts; the open question
// with a button per answer; the fix at the leaf. A pasted error log is classified
// (classifyLog) and walked from the classifier's start node; sanitizer reports in it
// become findings the walk answers from, listed with the log's decisive lines.
#pragma once

#include <QWidget>
#include <map>
#include <memory>
#include <optional>

#include "reportview.h"
#include "tilescope/diagnose/tree.h"
#include "tilescope/logs/classify.h"

class QFont;
class QGroupBox;
class QHBoxLayout;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTabWidget;
class QTextBrowser;
class QTreeWidget;
class QTreeWidgetItem;
class QVBoxLayout;

namespace tilescope::ui {

class TroubleshootPanel : public QWidget, public ReportView {
  Q_OBJECT
 public:
  /// What the walk runs over.
  enum class Subject { none, report, point, log };

  explicit TroubleshootPanel(Selection* selection, QWidget* parent = nullptr);
  ~TroubleshootPanel() override;

  void onReportLoaded(const ReportPtr& report) override;
  void onReportClosed() override;
  void onSelectionChanged(const SelectionState& state) override;

  /// A person's answer to the open question (or any node): re-walks. Returns false
  /// when the current walk has no open question with that answer id.
  bool answerOpenQuestion(const QString& answerId);
  /// Forgets every answer given by hand and re-walks.
  void resetAnswers();
  /// Classifies `log` (also put in the paste box) and walks from the classification's
  /// node over {"log": text}.
  Classification classifyAndWalk(const QString& log);
  /// Back from a pasted log to the report's walk.
  void walkReport();

  bool treeLoaded() const { return m_tree != nullptr; }
  QString treeError() const { return m_treeError; }
  Subject subject() const { return m_subject; }
  const TreeWalk& walk() const { return m_walk; }
  /// Node ids marked on the outline, start first (equals walk().path when the outline holds it).
  QStringList highlightedPath() const { return m_highlighted; }
  /// The leaf's explanation, fix and examples as plain text ("" while the walk is open).
  QString fixText() const;
  QString statusText() const;
  QString classificationText() const;
  const std::optional<Classification>& classification() const { return m_classification; }
  QTreeWidget* treeView() const { return m_treeView; }
  QPlainTextEdit* logEdit() const { return m_logEdit; }
  QPushButton* classifyButton() const { return m_classifyButton; }
  /// The paste's findings (sanitizer reports) and decisive lines, one row each.
  QTreeWidget* pasteFindings() const { return m_pasteFindings; }
  /// The source line of the selected finding when its file can be read ("" otherwise).
  QString sourceText() const;
  /// The open question's answer buttons (object name "answer:<id>").
  QList<QPushButton*> answerButtons() const;
  /// Shows the facts behind the step of `item` (or the node's text) in the details pane.
  void showItemDetails(QTreeWidgetItem* item);
  QString detailsText() const;

 private:
  void buildUi();
  QHBoxLayout* buildStatusRow();                ///< the walk's status and its buttons
  QTabWidget* buildTabs(const QFont& mono);     ///< the fix and the step's evidence
  QGroupBox* buildPasteBox(const QFont& mono);  ///< a pasted error, classified
  void rewalk();
  void showWalk();
  void rebuildAnswerButtons();
  nlohmann::json subjectJson(std::string* start) const;
  void showPasteFindings();
  void showSourceOf(QTreeWidgetItem* item);

  Selection* m_selection;
  ReportPtr m_report;
  int m_point = 0;
  std::unique_ptr<Tree> m_tree;
  QString m_treeError;
  Subject m_subject = Subject::none;
  QString m_log;
  std::optional<Classification> m_classification;
  std::map<std::string, std::string> m_userAnswers;
  TreeWalk m_walk;
  QStringList m_highlighted;

  QLabel* m_status;
  QTreeWidget* m_treeView;
  QGroupBox* m_questionBox;
  QLabel* m_questionLabel;
  QVBoxLayout* m_answersLayout;
  QPushButton* m_resetButton;
  QPushButton* m_backButton;
  QTextBrowser* m_fixView;
  QPlainTextEdit* m_details;
  QPlainTextEdit* m_logEdit;
  QPushButton* m_classifyButton;
  QLabel* m_classLabel;
  QTreeWidget* m_pasteFindings;
  QPlainTextEdit* m_sourceView;
};

}  // namespace tilescope::ui
