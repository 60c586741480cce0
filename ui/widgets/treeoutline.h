// The troubleshooting tree as a QTreeWidget outline: nodes nested under the answers
// that lead to them, a walk's path marked on it, and a leaf's fix as rich text.
// Helpers of TroubleshootPanel, kept free of the panel's state so tests and the
// export code can use them on their own.
#pragma once

#include <QColor>
#include <QString>
#include <QStringList>

#include "tilescope/diagnose/tree.h"

class QTreeWidget;
class QTreeWidgetItem;

namespace tilescope::ui {

/// Item data roles of the outline's column 0.
enum TreeOutlineRole : int {
  kNodeIdRole = 0x0100 + 1,  ///< QString: the node id (Qt::UserRole + 1)
  kOnPathRole,               ///< bool: the item is on the shown walk's path
  kStepRole,                 ///< int: index into TreeWalk::steps of the item's step, -1 when none
};

/// Fills `view` (cleared first) with the tree from its root: one item per node reached
/// by following answers' `next`; a node already on the item's ancestor chain is shown
/// as a "(cycle)" stub instead of being descended into. Columns: node title, the answer
/// that leads there, the question (inner nodes) or "fix" (leaves). Returns the number
/// of items made (capped at `maxItems`, for trees whose shared subtrees would blow up).
int populateTreeOutline(QTreeWidget* view, const Tree& tree, int maxItems = 4000);

/// Marks the walk on `view`: the chain of items from the first item of walk.path[0]
/// (breadth-first, so the shallowest) along each next id; those items get bold text,
/// `pathColor` as background, kOnPathRole = true, kStepRole and a tooltip with the
/// step's evidence. The node the walk stopped at gets `endColor`. Every other item is
/// reset. The chain is expanded and scrolled to. `tree` is the one the walk went through
/// (the answers' labels are its). Returns the marked node ids in order.
QStringList highlightWalk(QTreeWidget* view, const Tree& tree, const TreeWalk& walk, const QColor& pathColor,
                          const QColor& endColor);

/// The item of node `id` nearest the top (breadth-first), or nullptr.
QTreeWidgetItem* findOutlineItem(QTreeWidget* view, const QString& id);

/// A leaf as HTML: title, explanation, fix, before/after examples in monospace, sources.
QString leafHtml(const TreeNode& leaf);

/// A step's evidence (JSON array of facts) pretty-printed, for tooltips and the details pane.
QString evidenceText(const TreeStep& step);

}  // namespace tilescope::ui
