// Markdown writer: core's renderMarkdown, figures as PNGs next to the file.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QUrl>

#include "export/documentwriters.h"

namespace tilescope::ui {

bool writeMarkdown(const Document& doc, const QVector<Figure>& figures, const QString& path, QString* error) {
  const QFileInfo info(path);
  const QString dirName = info.completeBaseName() + QStringLiteral("_files");
  QDir dir = info.absoluteDir();
  if (!figures.isEmpty() && !dir.mkpath(dirName)) {
    if (error) *error = QStringLiteral("%1: cannot create the figure directory").arg(dir.filePath(dirName));
    return false;
  }
  for (const Figure& f : figures) {
    const QString png = dir.filePath(dirName + QLatin1Char('/') + f.id + QStringLiteral(".png"));
    if (!f.image.save(png, "PNG")) {
      if (error) *error = QStringLiteral("%1: cannot write the figure").arg(png);
      return false;
    }
  }
  // The directory name comes from the user's file name: percent-encoded it is a safe link.
  const std::string folder = QUrl::toPercentEncoding(dirName).toStdString();
  const FigureSource source = [&](const DocFigure& ref) -> std::optional<FigureImage> {
    for (const Figure& f : figures)
      if (f.id.toStdString() == ref.id) return FigureImage{folder + "/" + ref.id + ".png", 0};
    return std::nullopt;
  };
  QFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
    if (error) *error = QStringLiteral("%1: cannot write: %2").arg(path, file.errorString());
    return false;
  }
  const std::string md = renderMarkdown(doc, RenderOptions{source, false});
  file.write(md.data(), qint64(md.size()));
  return file.error() == QFile::NoError;
}

}  // namespace tilescope::ui
