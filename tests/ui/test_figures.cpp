// Figures for a paper: one figure (not the page), white, at a chosen DPI and font size, with a title, cells
// as vector rectangles. Each format is rendered back by an independent renderer (rsvg-convert for SVG,
// pdftoppm for PDF) and every cell's colour compared with the colour the window paints for its weight.

#include "tests/support/SkipReport.h"
#include "tests/support/WindowFixture.h"

#include "ui/attention/CandidatesChart.h"
#include "ui/base/AppSettings.h"
#include "ui/base/QCustomPlotInclude.h"
#include "ui/base/ViewState.h"
#include "ui/export/AttentionFigure.h"
#include "ui/export/FigureDialog.h"
#include "ui/export/FigureWriter.h"
#include "ui/positional/PositionalView.h"
#include "ui/views/HeatmapView.h"

#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QLineEdit>
#include <QProcess>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <cmath>

class TestFigures : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void everyFormatMatchesTheScreen_data();
    void everyFormatMatchesTheScreen();
    void pdfHoldsNoImages();
    void dpiFontAndTitle();
    void gridAndChart();
    void dialogRemembersChoices();
    void everyHeadToAFolder();

private:
    std::unique_ptr<WindowFixture> f_;
    QTemporaryDir tmp_;
    QImage renderBack(const QString& path, int dpi);
};

namespace {

int channelDistance(QRgb a, QRgb b) {
    return std::max(
        {std::abs(qRed(a) - qRed(b)), std::abs(qGreen(a) - qGreen(b)), std::abs(qBlue(a) - qBlue(b))});
}

} // namespace

void TestFigures::initTestCase() {
    isolateSettings();
    for (const char* tool : {"rsvg-convert", "pdftoppm"})
        if (QStandardPaths::findExecutable(QString::fromLatin1(tool)).isEmpty())
            QSKIP_MISSING(
                qPrintable(QStringLiteral("skipped: %1 is not installed (scripts/setup-deps.sh installs "
                                          "librsvg2-bin and poppler-utils); figures cannot be rendered back")
                               .arg(QString::fromLatin1(tool))));
    // Decoder self-attention after 4 steps: masked cells as well as weights.
    f_ = openWindow(kDemoModel, QStringLiteral("abc"));
    QVERIFY(f_);
    for (int i = 0; i < 4; ++i)
        f_->controller->step();
    QVERIFY(f_->controller->waitUntilIdle());
    f_->window.viewState()->setKind(core::AttentionKind::Decoder);
    f_->window.viewState()->setSelection(1, 2);
    QCoreApplication::processEvents();
}

QImage TestFigures::renderBack(const QString& path, int dpi) {
    const QString suffix = QFileInfo(path).suffix();
    const QString out = tmp_.filePath(QStringLiteral("back-%1").arg(suffix));
    QProcess p;
    if (suffix == QLatin1String("svg"))
        p.start(QStringLiteral("rsvg-convert"),
                {QStringLiteral("-d"), QString::number(dpi), QStringLiteral("-p"), QString::number(dpi),
                 QStringLiteral("-b"), QStringLiteral("white"), path, QStringLiteral("-o"),
                 out + QStringLiteral(".png")});
    else if (suffix == QLatin1String("pdf"))
        p.start(QStringLiteral("pdftoppm"),
                {QStringLiteral("-r"), QString::number(dpi), QStringLiteral("-png"),
                 QStringLiteral("-singlefile"), path, out});
    else
        return QImage(path);
    if (!p.waitForFinished(60000) || p.exitCode() != 0)
        return {};
    return QImage(out + QStringLiteral(".png"));
}

void TestFigures::everyFormatMatchesTheScreen_data() {
    QTest::addColumn<QString>("suffix");
    QTest::newRow("png") << QStringLiteral("png");
    QTest::newRow("svg") << QStringLiteral("svg");
    QTest::newRow("pdf") << QStringLiteral("pdf");
}

void TestFigures::everyFormatMatchesTheScreen() {
    QFETCH(QString, suffix);
    const auto& shown = f_->window.viewState()->shown();
    const auto m = ui::AttentionFigure::head(shown);
    QCOMPARE(m.rows, 5);
    QCOMPARE(m.cols, 5);
    ui::FigureStyle style;
    style.dpi = 144;
    style.title = ui::AttentionFigure::title(shown);
    const QString path = tmp_.filePath(QStringLiteral("head.") + suffix);
    QString error;
    QVERIFY2(ui::AttentionFigure::save(QStringLiteral("heatmap"), shown, {}, style, path, &error),
             qPrintable(error));
    const QImage back = renderBack(path, 144);
    QVERIFY2(!back.isNull(), "the figure could not be rendered back");
    // The page is the figure's size: 2 pixels per point at 144 DPI.
    const QSizeF pts = ui::FigureWriter::size(m, style);
    QVERIFY2(std::abs(back.width() - pts.width() * 2) <= 2 && std::abs(back.height() - pts.height() * 2) <= 2,
             qPrintable(QStringLiteral("%1 × %2 px for %3 × %4 pt")
                            .arg(back.width())
                            .arg(back.height())
                            .arg(pts.width())
                            .arg(pts.height())));
    QCOMPARE(back.pixel(1, 1) & 0xffffff, QColor(Qt::white).rgb() & 0xffffff); // a white background
    // Every cell against the colour of its weight, and against the window's own heatmap.
    auto* heat = f_->window.findChild<ui::HeatmapView*>();
    auto* plot = heat->plot();
    const QImage screen = plot->toPixmap(plot->width(), plot->height()).toImage();
    int worstFigure = 0, worstScreen = 0, masked = 0;
    for (int r = 0; r < m.rows; ++r)
        for (int c = 0; c < m.cols; ++c) {
            const QPointF centre = ui::FigureWriter::cellRect(m, style, r, c).center() * 2.0;
            const QRgb got = back.pixel(centre.toPoint());
            const float v = m.values[std::size_t(r) * 5 + std::size_t(c)];
            masked += std::isnan(v) ? 1 : 0;
            worstFigure = std::max(worstFigure, channelDistance(got, m.color(v)));
            const QPoint onScreen(int(plot->xAxis->coordToPixel(c)), int(plot->yAxis->coordToPixel(r)));
            worstScreen = std::max(worstScreen, channelDistance(got, screen.pixel(onScreen)));
        }
    qInfo("%s: %d cells (%d masked); largest channel difference %d against the weight's colour, %d against "
          "the window's heatmap",
          qPrintable(suffix), m.rows * m.cols, masked, worstFigure, worstScreen);
    QCOMPARE(masked, 10); // the upper triangle of 5 × 5
    QVERIFY(worstFigure <= 2);
    QVERIFY(worstScreen <= 6); // the window's gradient has its own levels
}

void TestFigures::pdfHoldsNoImages() {
    // Qt's PDF engine stores every image as JPEG: the cells must be rectangles, never an image.
    const QString path = tmp_.filePath(QStringLiteral("grid.pdf"));
    QString error;
    QVERIFY2(ui::AttentionFigure::save(QStringLiteral("grid"), f_->window.viewState()->shown(), nullptr, {},
                                       path, &error),
             qPrintable(error));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray bytes = file.readAll();
    QVERIFY(!bytes.contains("/DCTDecode"));
    QVERIFY(!bytes.contains("/Subtype /Image"));
    const QImage back = renderBack(path, 72);
    QVERIFY(!back.isNull());
}

void TestFigures::dpiFontAndTitle() {
    const auto& shown = f_->window.viewState()->shown();
    const auto m = ui::AttentionFigure::head(shown);
    ui::FigureStyle small, large;
    small.fontPt = 8;
    large.fontPt = 16;
    large.title = QStringLiteral("A title");
    QVERIFY(ui::FigureWriter::size(m, large).width() > ui::FigureWriter::size(m, small).width());
    QVERIFY(ui::FigureWriter::size(m, large).height() > ui::FigureWriter::size(m, small).height());
    for (const int dpi : {100, 300}) {
        small.dpi = dpi;
        const QString path = tmp_.filePath(QStringLiteral("dpi%1.png").arg(dpi));
        QString error;
        QVERIFY2(ui::FigureWriter::write(m, small, path, &error), qPrintable(error));
        const QImage img(path);
        const QSizeF pts = ui::FigureWriter::size(m, small);
        QCOMPARE(img.width(), int(std::ceil(pts.width() * dpi / 72.0)));
        QCOMPARE(qRound(img.dotsPerMeterX() * 0.0254), dpi);
    }
    const QString svg = tmp_.filePath(QStringLiteral("titled.svg"));
    QString error;
    QVERIFY(ui::FigureWriter::write(m, large, svg, &error));
    QFile file(svg);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QVERIFY(file.readAll().contains("A title"));
    // A suffix that is no figure format is refused, and nothing is written.
    const QString jpg = tmp_.filePath(QStringLiteral("x.jpg"));
    QVERIFY(!ui::FigureWriter::write(m, small, jpg, &error));
    QVERIFY2(error.contains(QStringLiteral(".png, .svg or .pdf")), qPrintable(error));
    QVERIFY(!QFile::exists(jpg));
}

void TestFigures::gridAndChart() {
    const auto g = ui::AttentionFigure::grid(f_->window.viewState()->shown());
    QCOMPARE(g.rowLabels.size(), 2);
    QCOMPARE(g.colLabels.size(), 5); // 4 heads and the mean
    QCOMPARE(int(g.tiles.size()), 10);
    // Chosen heads only, in the order asked.
    std::vector<int> picked;
    QString why;
    QVERIFY(ui::AttentionFigure::parseHeads(QStringLiteral("2, mean"), 4, &picked, &why));
    const auto some = ui::AttentionFigure::grid(f_->window.viewState()->shown(), picked);
    QCOMPARE(some.colLabels, (QStringList{QStringLiteral("H2"), QStringLiteral("mean")}));
    QCOMPARE(int(some.tiles.size()), 4);
    QCOMPARE(some.tiles[2].rows, g.tiles[1 * 5 + 2].rows);
    QVERIFY(!ui::AttentionFigure::parseHeads(QStringLiteral("0, 7"), 4, &picked, &why));
    QVERIFY2(why.contains(QStringLiteral("'7'")), qPrintable(why));
    const auto& tile = g.tiles[1 * 5 + 2].values;
    const auto head = ui::AttentionFigure::head(f_->window.viewState()->shown()).values;
    QCOMPARE(tile.size(), head.size());
    for (std::size_t i = 0; i < tile.size();
         ++i) // NaN (masked) in the same cells, the same weights elsewhere
        QVERIFY(std::isnan(tile[i]) ? std::isnan(head[i]) : tile[i] == head[i]);
    auto* chart = f_->window.findChild<ui::CandidatesChart*>();
    const QString path = tmp_.filePath(QStringLiteral("chart.svg"));
    QString error;
    const auto plots = [&](const QString& name) -> QCustomPlot* {
        return name == QLatin1String("candidates") ? chart->plot() : nullptr;
    };
    QVERIFY2(ui::AttentionFigure::save(QStringLiteral("candidates"), f_->window.viewState()->shown(), plots,
                                       {}, path, &error),
             qPrintable(error));
    QVERIFY(!renderBack(path, 72).isNull());
    // The positional curves, from the window's positional tab, as a vector plot.
    auto* positional = f_->window.findChild<ui::PositionalView*>();
    const QString curves = tmp_.filePath(QStringLiteral("curves.pdf"));
    QVERIFY2(ui::AttentionFigure::save(
                 QStringLiteral("curves"), f_->window.viewState()->shown(),
                 [&](const QString&) { return positional->curvePlot(); }, {}, curves, &error),
             qPrintable(error));
    QFile pdf(curves);
    QVERIFY(pdf.open(QIODevice::ReadOnly));
    QVERIFY(!pdf.readAll().contains("/Subtype /Image"));
    // Asked for without one, it says so.
    QVERIFY(!ui::AttentionFigure::save(QStringLiteral("curves"), f_->window.viewState()->shown(), plots, {},
                                       curves, &error));
    QVERIFY2(error.contains(QStringLiteral("no positional table")), qPrintable(error));
}

void TestFigures::dialogRemembersChoices() {
    ui::AppSettings::setFigureChoice({}); // the defaults, whatever an earlier run left
    {
        ui::FigureDialog dialog(QStringLiteral("decoder self-attention · layer 1 · head 2"));
        dialog.show();
        auto* which = dialog.findChild<QComboBox*>(QStringLiteral("figureBox"));
        which->setFocus();
        QTest::keyClick(which, Qt::Key_Down); // the keyboard picks "every head"
        QTest::keyClick(dialog.findChild<QDoubleSpinBox*>(QStringLiteral("fontSpin")), Qt::Key_Up);
        dialog.findChild<QSpinBox*>(QStringLiteral("dpiSpin"))->setValue(600);
        QCOMPARE(dialog.figure(), QStringLiteral("grid"));
        QCOMPARE(dialog.style().fontPt, 10.0);
        QCOMPARE(dialog.style().dpi, 600);
        QCOMPARE(dialog.style().title, QStringLiteral("decoder self-attention · layer 1 · head 2"));
        const QByteArray shots = qgetenv("ATTNSCOPE_TEST_SHOTS");
        if (!shots.isEmpty())
            QVERIFY(dialog.grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/figure-dialog.png")));
        dialog.accept();
    }
    ui::FigureDialog again(QStringLiteral("t"));
    QCOMPARE(again.figure(), QStringLiteral("grid"));
    QCOMPARE(again.style().fontPt, 10.0);
    QCOMPARE(again.style().dpi, 600);
}

void TestFigures::everyHeadToAFolder() {
    // Decoder self-attention of 2 layers × 4 heads: 8 heads and 2 means as PDFs, and one CSV.
    const QString dir = tmp_.filePath(QStringLiteral("heads"));
    QList<int> seen;
    QString error;
    const int written = ui::AttentionFigure::saveAllHeads(
        f_->window.viewState()->shown(), dir, QStringLiteral("pdf"), {},
        [&seen](int done, int total) {
            seen << done;
            return total == 11;
        },
        &error);
    QVERIFY2(written == 11, qPrintable(error));
    QCOMPARE(seen.size(), 11); // progress after every file
    QStringList files = QDir(dir).entryList(QDir::Files);
    QCOMPARE(files.size(), 11);
    QVERIFY(files.contains(QStringLiteral("decoder-L1-H3.pdf")));
    QVERIFY(files.contains(QStringLiteral("decoder-L0-mean.pdf")));
    QFile csv(QDir(dir).filePath(QStringLiteral("decoder-all-heads.csv")));
    QVERIFY(csv.open(QIODevice::ReadOnly));
    QCOMPARE(csv.readAll().count('\n'), 1 + 2 * 4 * 5); // a header, then a row per layer, head and query
    QVERIFY(!renderBack(QDir(dir).filePath(QStringLiteral("decoder-L1-H3.pdf")), 72).isNull());
    // Cancelled after 3 files: 3 are there, and nothing else is written.
    const QString stopped = tmp_.filePath(QStringLiteral("stopped"));
    const int partial = ui::AttentionFigure::saveAllHeads(
        f_->window.viewState()->shown(), stopped, QStringLiteral("png"), {},
        [](int done, int) { return done < 3; }, &error);
    QCOMPARE(partial, 3);
    QCOMPARE(QDir(stopped).entryList(QDir::Files).size(), 3);
}

ATTNSCOPE_WIDGETS_MAIN(TestFigures)
#include "test_figures.moc"
