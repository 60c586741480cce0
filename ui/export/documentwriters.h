// Writers of core's export document (tilescope/export/document.h) with the GUI's figures:
// HTML (figures as data URIs), PDF (the same HTML laid out by QTextDocument) and
// Markdown (figures as PNG files beside it).
#pragma once

#include <memory>

#include <QPagedPaintDevice>
#include <QString>
#include <QTextDocument>

#include "export/exportfigures.h"
#include "tilescope/export/document.h"

namespace tilescope::ui {

/// "data:image/png;base64,..."
QString pngDataUri(const QImage& image);

bool writeHtml(const Document& doc, const QVector<Figure>& figures, const QString& path, QString* error);
/// A4 through QPdfWriter; sections marked pageBreakBefore start a new page.
bool writePdf(const Document& doc, const QVector<Figure>& figures, const QString& path, QString* error);
/// Markdown with the figures as PNGs in "<basename>_files/" next to it (relative links).
bool writeMarkdown(const Document& doc, const QVector<Figure>& figures, const QString& path, QString* error);

/// A writer of one of the three formats above.
using DocumentWriter = bool (*)(const Document&, const QVector<Figure>&, const QString&, QString*);
/// The writer `outPath`'s extension names (.html/.htm, .pdf, .md/.markdown), or
/// nullptr with *error naming the path and the formats.
DocumentWriter writerFor(const QString& outPath, QString* error);

/// The QTextDocument writePdf prints on `device`: its page size is the device's
/// printable area, so tables span the text width (tests measure the layout).
std::unique_ptr<QTextDocument> pagedDocument(const Document& doc, const QVector<Figure>& figures,
                                             QPagedPaintDevice* device);

}  // namespace tilescope::ui
