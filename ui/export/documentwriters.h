// Writers of an ExportDocument: HTML (also the source of the PDF), PDF, Markdown.
#pragma once

#include <functional>

#include <QString>

#include "export/exportdocument.h"

namespace tilescope::ui {

/// Self-contained HTML; every text from the report is HTML-escaped. `imageSrc` gives
/// each figure's src (a data: URI for .html, a resource URL for the PDF).
QString renderHtml(const ExportDocument& doc, const QVector<Figure>& figures,
                   const std::function<QString(const Figure&)>& imageSrc, bool forPdf = false);
/// "data:image/png;base64,..."
QString pngDataUri(const QImage& image);

bool writeHtml(const ExportDocument& doc, const QVector<Figure>& figures, const QString& path, QString* error);
/// A4 through QPdfWriter; sections marked pageBreakBefore start a new page.
bool writePdf(const ExportDocument& doc, const QVector<Figure>& figures, const QString& path, QString* error);
/// Markdown with the figures as PNGs in "<basename>_files/" next to it (relative links).
bool writeMarkdown(const ExportDocument& doc, const QVector<Figure>& figures, const QString& path, QString* error);

/// Escapes text for a Markdown table cell or paragraph (HTML specials, pipes, emphasis).
QString markdownEscape(const QString& text);

}  // namespace tilescope::ui
