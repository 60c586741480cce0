#include "widgets/treeoutline.h"

#include <QBrush>
#include <QFont>
#include <QQueue>
#include <QSet>
#include <QTreeWidget>
#include <QTreeWidgetItem>
#include <functional>

namespace tilescope::ui {

namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

QString nodeTooltip(const TreeNode& n) {
  QString t =
      QStringLiteral("<b>%1</b> <code>%2</code>").arg(q(n.title).toHtmlEscaped(), q(n.id).toHtmlEscaped());
  if (!n.question.empty()) t += QStringLiteral("<br>%1").arg(q(n.question).toHtmlEscaped());
  if (n.isLeaf()) t += QStringLiteral("<br><i>Fix:</i> %1").arg(q(n.fix).toHtmlEscaped());
  if (!n.experiment.empty()) t += QStringLiteral("<br><i>Experiment:</i> %1").arg(q(n.experiment));
  return t;
}

QTreeWidgetItem* makeItem(const TreeNode& n, const QString& via) {
  auto* item = new QTreeWidgetItem;
  item->setText(0, q(n.title));
  item->setText(1, via);
  item->setText(2, n.isLeaf() ? QObject::tr("fix: %1").arg(q(n.fix)) : q(n.question));
  item->setData(0, kNodeIdRole, q(n.id));
  item->setData(0, kOnPathRole, false);
  item->setData(0, kStepRole, -1);
  item->setToolTip(0, nodeTooltip(n));
  return item;
}

void forEachItem(QTreeWidget* view, const std::function<void(QTreeWidgetItem*)>& fn) {
  QQueue<QTreeWidgetItem*> queue;
  for (int i = 0; i < view->topLevelItemCount(); ++i) queue.enqueue(view->topLevelItem(i));
  while (!queue.isEmpty()) {
    QTreeWidgetItem* it = queue.dequeue();
    fn(it);
    for (int i = 0; i < it->childCount(); ++i) queue.enqueue(it->child(i));
  }
}

void setMarked(QTreeWidgetItem* item, bool on, const QColor& color) {
  for (int c = 0; c < item->columnCount(); ++c) {
    QFont f = item->font(c);
    f.setBold(on);
    item->setFont(c, f);
    item->setBackground(c, on ? QBrush(color) : QBrush());
  }
  item->setData(0, kOnPathRole, on);
}

}  // namespace

int populateTreeOutline(QTreeWidget* view, const Tree& tree, int maxItems) {
  view->clear();
  view->setColumnCount(3);
  view->setHeaderLabels(
      {QObject::tr("Node"), QObject::tr("Answer leading here"), QObject::tr("Question / fix")});
  const TreeNode* root = tree.find(tree.root);
  if (!root) return 0;
  int made = 0;
  QSet<QString> ancestors;  // ids on the chain from the root to the item being filled
  std::function<void(QTreeWidgetItem*, const TreeNode&)> fill = [&](QTreeWidgetItem* parent,
                                                                    const TreeNode& n) {
    ancestors.insert(q(n.id));
    for (const TreeAnswer& a : n.answers) {
      const TreeNode* next = tree.find(a.next);
      if (!next || made >= maxItems) continue;
      const QString via = q(a.label) + (a.when.is_null() ? QObject::tr(" (you decide)") : QString());
      QTreeWidgetItem* child = makeItem(*next, via);
      ++made;
      parent->addChild(child);
      if (ancestors.contains(q(next->id))) {
        // validateTree() rejects cycles, but a hand-edited tree loaded elsewhere may have one.
        child->setText(0, QObject::tr("%1 (cycle)").arg(child->text(0)));
        continue;
      }
      fill(child, *next);
    }
    ancestors.remove(q(n.id));
  };
  QTreeWidgetItem* top = makeItem(*root, QString());
  ++made;
  view->addTopLevelItem(top);
  fill(top, *root);
  return made;
}

QTreeWidgetItem* findOutlineItem(QTreeWidget* view, const QString& id) {
  QTreeWidgetItem* found = nullptr;
  forEachItem(view, [&](QTreeWidgetItem* it) {
    if (!found && it->data(0, kNodeIdRole).toString() == id) found = it;
  });
  return found;
}

QStringList highlightWalk(QTreeWidget* view, const Tree& tree, const TreeWalk& walk, const QColor& pathColor,
                          const QColor& endColor) {
  forEachItem(view, [](QTreeWidgetItem* it) {
    setMarked(it, false, {});
    it->setData(0, kStepRole, -1);
  });
  view->collapseAll();
  QStringList marked;
  if (walk.path.empty()) return marked;
  QTreeWidgetItem* item = findOutlineItem(view, q(walk.path.front()));
  for (size_t i = 0; item && i < walk.path.size(); ++i) {
    const QString id = q(walk.path[i]);
    if (i > 0) {
      QTreeWidgetItem* next = nullptr;
      for (int c = 0; c < item->childCount() && !next; ++c)
        if (item->child(c)->data(0, kNodeIdRole).toString() == id) next = item->child(c);
      if (!next) break;  // the outline was capped or the tree changed under the walk
      item = next;
    }
    const bool last = i + 1 == walk.path.size();
    setMarked(item, true, last ? endColor : pathColor);
    marked << id;
    // Step i answers the node at path[i]; the open question (if any) has no step.
    if (i < walk.steps.size() && walk.steps[i].node == walk.path[i]) {
      item->setData(0, kStepRole, static_cast<int>(i));
      const TreeStep& s = walk.steps[i];
      const TreeNode* node = tree.find(s.node);
      const TreeAnswer* answer = node ? node->answer(s.answer) : nullptr;
      QString tip = QObject::tr("%1 → %2 (%3)")
                        .arg(q(s.question), q(answer ? answer->label : s.answer),
                             s.automatic ? QObject::tr("from the evidence") : QObject::tr("your answer"));
      if (s.automatic && s.evidence.is_array() && !s.evidence.empty())
        tip += QStringLiteral("\n\n") + evidenceText(s).left(1500);
      item->setToolTip(1, tip);
    }
    for (QTreeWidgetItem* p = item->parent(); p; p = p->parent()) p->setExpanded(true);
  }
  if (item) view->scrollToItem(item);
  return marked;
}

QString leafHtml(const TreeNode& leaf) {
  QString html = QStringLiteral("<h3>%1</h3>").arg(q(leaf.title).toHtmlEscaped());
  if (!leaf.explanation.empty()) html += QStringLiteral("<p>%1</p>").arg(q(leaf.explanation).toHtmlEscaped());
  html += QStringLiteral("<p><b>%1</b> %2</p>").arg(QObject::tr("Fix:"), q(leaf.fix).toHtmlEscaped());
  for (const TreeExample& ex : leaf.examples) {
    html += QStringLiteral(
                "<p><i>%1</i></p><table border='0' cellspacing='6'><tr><th align='left'>%2</th><th "
                "align='left'>%3</th></tr>")
                .arg(q(ex.language).toHtmlEscaped(), QObject::tr("Before"), QObject::tr("After"));
    html += QStringLiteral(
                "<tr><td valign='top'><pre>%1</pre></td><td valign='top'><pre>%2</pre></td></tr></table>")
                .arg(q(ex.before).toHtmlEscaped(), q(ex.after).toHtmlEscaped());
  }
  if (!leaf.sources.empty()) {
    QStringList src;
    for (const auto& s : leaf.sources) src << q(s).toHtmlEscaped();
    html += QStringLiteral("<p><small>%1 %2</small></p>")
                .arg(QObject::tr("Sources:"), src.join(QStringLiteral("; ")));
  }
  return html;
}

QString evidenceText(const TreeStep& step) {
  if (step.evidence.is_null() || (step.evidence.is_array() && step.evidence.empty()))
    return step.automatic ? QObject::tr("(no recorded facts)") : QObject::tr("(answered by you)");
  return q(step.evidence.dump(2));
}

}  // namespace tilescope::ui
