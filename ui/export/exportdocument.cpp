#include "export/exportdocument.h"

#include "charts/devicecomparison.h"
#include "charts/occupancycharts.h"
#include "charts/rooflinecharts.h"
#include "charts/timingcharts.h"
#include "charts/unitticker.h"

namespace tilescope::ui {

namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

QString configString(const nlohmann::json& config, const char* a, const char* b = nullptr) {
  if (!config.is_object() || !config.contains(a)) return {};
  const nlohmann::json& v = b ? (config[a].is_object() && config[a].contains(b) ? config[a][b] : nlohmann::json()) : config[a];
  return v.is_null() ? QString() : jsonText(v);
}

QStringList figuresWithPrefix(const QVector<Figure>& figures, const QString& prefix) {
  QStringList ids;
  for (const Figure& f : figures)
    if (f.id.startsWith(prefix)) ids << f.id;
  return ids;
}

ExportSection summary(const Report& r, const QString& note) {
  ExportSection s{QStringLiteral("Summary"), {}, {}, {}, false};
  ExportTable t{{}, {QStringLiteral("Field"), QStringLiteral("Value")}, {}};
  t.rows << QStringList{QStringLiteral("Verdict"), q(verdictName(r.verdict))};
  t.rows << QStringList{QStringLiteral("Verb"), q(r.verb)};
  QString device = q(r.device.name);
  if (!r.device.cc.empty()) device += QStringLiteral(" (cc %1, %2 SMs%3)").arg(q(r.device.cc)).arg(r.device.smCount)
                                          .arg(r.device.live ? QStringLiteral(", measured") : QStringLiteral(", database"));
  t.rows << QStringList{QStringLiteral("Device"), device};
  t.rows << QStringList{QStringLiteral("Points"), QString::number(r.points.size())};
  t.rows << QStringList{QStringLiteral("Created"), q(r.createdAt)};
  t.rows << QStringList{QStringLiteral("Host"), q(r.host)};
  t.rows << QStringList{QStringLiteral("Tool version"), q(r.toolVersion)};
  if (!r.treePath.empty()) {
    QStringList path;
    for (const auto& n : r.treePath) path << q(n);
    t.rows << QStringList{QStringLiteral("Tree path"), path.join(QStringLiteral(" → "))};
  }
  s.tables << t;
  if (!note.isEmpty()) s.paragraphs << note;
  return s;
}

ExportSection configuration(const Report& r) {
  ExportSection s{QStringLiteral("Configuration"), {}, {}, {}, false};
  ExportTable t{{}, {QStringLiteral("Field"), QStringLiteral("Value")}, {}};
  const nlohmann::json& c = r.config;
  const QString entry = configString(c, "kernel", "entry"), source = configString(c, "kernel", "source");
  const QStringList rows[] = {
      {QStringLiteral("Name"), configString(c, "name")},
      {QStringLiteral("Kernel"), source.isEmpty() ? entry : QStringLiteral("%1 in %2").arg(entry, source)},
      {QStringLiteral("Compiler"), configString(c, "kernel", "compiler")},
      {QStringLiteral("Defines"), configString(c, "kernel", "defines")},
      {QStringLiteral("Params"), configString(c, "params")},
      {QStringLiteral("Grid"), configString(c, "launch", "grid")},
      {QStringLiteral("Block"), configString(c, "launch", "block")},
      {QStringLiteral("Shared bytes"), configString(c, "launch", "shared_bytes")},
      {QStringLiteral("Reference"), configString(c, "reference")},
      {QStringLiteral("Baseline"), configString(c, "baseline")},
      {QStringLiteral("Sweep"), configString(c, "sweep")},
  };
  for (const QStringList& row : rows)
    if (!row[1].isEmpty()) t.rows << row;
  s.tables << t;
  return s;
}

ExportSection findings(const Report& r) {
  ExportSection s{QStringLiteral("Findings"), {}, {}, {}, false};
  if (r.findings.empty()) {
    s.paragraphs << QStringLiteral("No findings.");
    return s;
  }
  ExportTable t{{}, {QStringLiteral("Severity"), QStringLiteral("Category"), QStringLiteral("Message"),
                     QStringLiteral("Location"), QStringLiteral("Tensor"), QStringLiteral("Tree node")}, {}};
  for (const Finding& f : r.findings) {
    QString category = q(f.category);
    if (!f.detail.empty()) category += QStringLiteral(" (%1)").arg(q(f.detail));
    t.rows << QStringList{q(severityName(f.severity)), category, q(f.message), q(locationText(f.location)), q(f.tensor),
                          q(f.treeNode)};
  }
  s.tables << t;
  return s;
}

ExportSection tree(const Report& r) {
  ExportSection s{QStringLiteral("Troubleshooting path"), {}, {}, {}, false};
  ExportTable t{{}, {QStringLiteral("Node"), QStringLiteral("Question"), QStringLiteral("Answer"), QStringLiteral("Evidence")}, {}};
  for (const TreeStep& step : r.treeSteps)
    t.rows << QStringList{q(step.node), q(step.question), q(step.answer), jsonText(step.evidence)};
  s.tables << t;
  return s;
}

ExportSection points(const Report& r) {
  ExportSection s{QStringLiteral("Points"), {}, {}, {}, true};
  ExportTable t{{}, {QStringLiteral("#"), QStringLiteral("Point"), QStringLiteral("Verdict"), QStringLiteral("Median"),
                     QStringLiteral("Baseline"), QStringLiteral("Speedup"), QStringLiteral("CV")}, {}};
  for (size_t i = 0; i < r.points.size(); ++i) {
    const Point& p = r.points[i];
    t.rows << QStringList{QString::number(i), pointLabel(p), q(verdictName(p.verdict)),
                          p.timing.measured ? formatDuration(p.timing.kernelNs.median) : QStringLiteral("–"),
                          p.baseline.measured ? QStringLiteral("%1 %2").arg(q(p.baseline.name), formatDuration(p.baseline.kernelNs.median))
                                              : QStringLiteral("–"),
                          p.speedup ? QStringLiteral("%1×").arg(QString::number(*p.speedup, 'f', 2)) : QStringLiteral("–"),
                          p.timing.measured ? formatPercent(p.timing.cv) : QStringLiteral("–")};
  }
  s.tables << t;
  return s;
}

ExportSection correctness(const Report& r) {
  ExportSection s{QStringLiteral("Correctness"), {}, {}, {}, false};
  ExportTable t{{}, {QStringLiteral("Point"), QStringLiteral("Tensor"), QStringLiteral("Reference"), QStringLiteral("Max abs err"),
                     QStringLiteral("Max rel err"), QStringLiteral("Mismatches"), QStringLiteral("NaN"), QStringLiteral("Inf"),
                     QStringLiteral("First mismatch")}, {}};
  for (const Point& p : r.points)
    for (const CorrectnessInfo& c : p.correctness) {
      if (!c.checked) continue;
      t.rows << QStringList{pointLabel(p), q(c.tensor), q(c.reference), QString::number(c.maxAbsErr, 'g', 4),
                            QString::number(c.maxRelErr, 'g', 4),
                            QStringLiteral("%1 of %2").arg(c.mismatches).arg(c.elements), QString::number(c.nan),
                            QString::number(c.inf),
                            c.firstMismatch[0] < 0 ? QStringLiteral("–")
                                                   : QStringLiteral("[%1, %2]").arg(c.firstMismatch[0]).arg(c.firstMismatch[1])};
    }
  if (!t.rows.isEmpty()) s.tables << t;
  return s;
}

ExportSection occupancy(const Report& r, const QVector<Figure>& figures) {
  ExportSection s{QStringLiteral("Occupancy"), {}, {}, {}, true};
  ExportTable t{{}, {QStringLiteral("Point"), QStringLiteral("Threads"), QStringLiteral("Regs/thread"),
                     QStringLiteral("Smem/block"), QStringLiteral("Blocks/SM"), QStringLiteral("Occupancy"),
                     QStringLiteral("Limiter")}, {}};
  for (const Point& p : r.points) {
    const OccupancyInfo& o = p.occupancy;
    if (!o.computed) continue;
    t.rows << QStringList{pointLabel(p), QString::number(o.threadsPerBlock), QString::number(o.regsPerThread),
                          formatBytes(double(o.smemPerBlock)), QString::number(o.blocksPerSm),
                          formatPercent(o.theoretical), limiterName(o.limiter)};
  }
  if (!t.rows.isEmpty()) s.tables << t;
  const int focus = focusPoint(r);
  if (const DeviceDb* db = defaultDeviceDb(); db && focus >= 0) {
    const Point& p = r.points[size_t(focus)];
    ExportTable d{QStringLiteral("Point %1 on the devices of the database").arg(pointLabel(p)),
                  {QStringLiteral("Device"), QStringLiteral("Occupancy"), QStringLiteral("Blocks/SM"),
                   QStringLiteral("Limiter"), QStringLiteral("Shared memory")}, {}};
    for (const DeviceOccupancy& row : compareDevices(*db, r, p))
      d.rows << QStringList{row.current ? row.device + QStringLiteral(" (report)") : row.device,
                            formatPercent(row.occupancy), QString::number(row.blocksPerSm), row.limiter, row.smemFit};
    if (!d.rows.isEmpty()) s.tables << d;
  }
  s.figureIds = figuresWithPrefix(figures, QStringLiteral("occupancy_"));
  return s;
}

ExportSection coverage(const Report& r, const QVector<Figure>& figures) {
  ExportSection s{QStringLiteral("Coverage"), {}, {}, {}, true};
  ExportTable t{{}, {QStringLiteral("Point"), QStringLiteral("Tensor"), QStringLiteral("Elements"), QStringLiteral("Written"),
                     QStringLiteral("Unwritten"), QStringLiteral("Declared uncovered"), QStringLiteral("Declared overlapped")}, {}};
  for (const Point& p : r.points)
    for (const CoverageInfo& c : p.coverage)
      t.rows << QStringList{pointLabel(p), q(c.tensor), QString::number(c.elements),
                            c.measured ? QString::number(c.written) : QStringLiteral("–"),
                            c.measured ? QString::number(c.unwritten) : QStringLiteral("–"),
                            QString::number(c.declaredUncovered), QString::number(c.declaredOverlapped)};
  if (!t.rows.isEmpty()) s.tables << t;
  s.figureIds = figuresWithPrefix(figures, QStringLiteral("coverage_"));
  return s;
}

ExportSection counters(const Report& r, const QVector<Figure>& figures) {
  ExportSection s{QStringLiteral("Hardware counters"), {}, {}, {}, true};
  const int focus = focusPoint(r);
  if (focus < 0) return s;
  const Point& p = r.points[size_t(focus)];
  const CountersInfo& c = p.counters;
  if (!c.collected) {
    if (!c.note.empty()) s.paragraphs << q(c.note);
    return s;
  }
  s.paragraphs << QStringLiteral("Point %1: %2 metrics (ncu's names) on %3, %4 replay passes, %5 s of profiling.")
                      .arg(pointLabel(p)).arg(c.metrics.size()).arg(q(c.chip)).arg(c.passes)
                      .arg(QString::number(c.seconds, 'f', 2));
  ExportTable t{{}, {QStringLiteral("Metric"), QStringLiteral("ncu name"), QStringLiteral("Kernel"),
                     QStringLiteral("Baseline"), QStringLiteral("Kernel / baseline")}, {}};
  for (const std::string& name : c.metrics) {
    const double k = c.kernel.get(name, NAN), b = c.baseline ? c.baseline->get(name, NAN) : NAN;
    t.rows << QStringList{q(metricDef(name).label), q(name), formatMetric(name, k), formatMetric(name, b),
                          known(k) && known(b) && b != 0 ? QString::number(k / b, 'g', 3) : QStringLiteral("–")};
  }
  s.tables << t;
  if (c.pcSampling.collected && !c.pcSampling.lines.empty()) {
    ExportTable l{QStringLiteral("Hottest lines (PC sampling, %1 samples)").arg(c.pcSampling.totalSamples),
                  {QStringLiteral("Line"), QStringLiteral("Samples"), QStringLiteral("Main stalls")}, {}};
    for (const HotLine& h : c.pcSampling.lines) {
      QStringList stalls;
      for (std::size_t i = 0; i < h.stalls.size() && i < 3; ++i)
        stalls << QStringLiteral("%1 (%2)").arg(q(h.stalls[i].reason)).arg(h.stalls[i].samples);
      l.rows << QStringList{QStringLiteral("%1:%2").arg(q(h.file)).arg(h.line), QString::number(h.samples),
                            stalls.join(QStringLiteral(", "))};
    }
    s.tables << l;
  }
  s.figureIds = figuresWithPrefix(figures, QStringLiteral("counters_"));
  return s;
}

}  // namespace

QString jsonText(const nlohmann::json& j) {
  if (j.is_null()) return {};
  if (j.is_string()) return q(j.get<std::string>());
  if (j.is_object()) {
    QStringList parts;
    for (const auto& [k, v] : j.items()) parts << QStringLiteral("%1=%2").arg(q(k), v.is_string() ? q(v.get<std::string>()) : q(v.dump()));
    return parts.join(QStringLiteral(", "));
  }
  return q(j.dump());
}

ExportDocument buildExportDocument(const Report& r, const QVector<Figure>& figures, const QString& note) {
  ExportDocument doc;
  const QString name = configString(r.config, "name");
  doc.title = QStringLiteral("TileScope report: %1").arg(name.isEmpty() ? q(r.verb) : name);
  doc.sections << summary(r, note) << configuration(r) << findings(r);
  if (!r.treeSteps.empty()) doc.sections << tree(r);
  if (!r.points.empty()) {
    ExportSection pts = points(r);
    pts.figureIds = figuresWithPrefix(figures, QStringLiteral("timing_"));
    doc.sections << pts;
  }
  for (ExportSection s : {correctness(r), occupancy(r, figures), counters(r, figures), coverage(r, figures)})
    if (!s.tables.isEmpty() || !s.figureIds.isEmpty()) doc.sections << s;
  return doc;
}

}  // namespace tilescope::ui
