#include "models/triagefilter.h"

#include "models/triagemodel.h"

namespace tilescope::ui {

TriageFilter::TriageFilter(QObject* parent) : QSortFilterProxyModel(parent) {
  setSortRole(TriageModel::SortRole);
  setFilterCaseSensitivity(Qt::CaseInsensitive);
}

void TriageFilter::setText(const QString& text) {
  m_text = text.trimmed();
  invalidateFilter();
}

void TriageFilter::setCategory(const QString& categoryKey) {
  m_category = categoryKey;
  invalidateFilter();
}

bool TriageFilter::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
  const QAbstractItemModel* m = sourceModel();
  if (!m_category.isEmpty() &&
      m->index(sourceRow, 0, sourceParent).data(TriageModel::CategoryKeyRole).toString() != m_category)
    return false;
  if (m_text.isEmpty()) return true;
  for (int c = 0; c < m->columnCount(sourceParent); ++c)
    if (m->index(sourceRow, c, sourceParent).data().toString().contains(m_text, Qt::CaseInsensitive))
      return true;
  return false;
}

}  // namespace tilescope::ui
