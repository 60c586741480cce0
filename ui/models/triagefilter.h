// The Triage view's sort and filter: a QSortFilterProxyModel over TriageModel
// that sorts by its SortRole (numbers where the column is numeric) and keeps the
// rows whose text contains the filter string and whose taxonomy key is the
// chosen category (empty: every category).
#pragma once

#include <QSortFilterProxyModel>

namespace tilescope::ui {

class TriageFilter : public QSortFilterProxyModel {
  Q_OBJECT
 public:
  explicit TriageFilter(QObject* parent = nullptr);
  void setText(const QString& text);
  void setCategory(const QString& categoryKey);
  QString category() const { return m_category; }

 protected:
  bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

 private:
  QString m_text, m_category;
};

}  // namespace tilescope::ui
