// Exports from the window: pictures that open, CSV and JSON that parse with the right shapes and values,
// and failures that say why and leave nothing behind.

#include "WindowFixture.h"

#include "ui/AttentionGrid.h"
#include "ui/CandidatesChart.h"
#include "ui/Exporter.h"
#include "ui/HeatmapView.h"
#include "ui/QCustomPlotInclude.h"
#include "ui/TokenStrip.h"
#include "ui/ViewState.h"

#include <QAbstractButton>
#include <QAbstractSpinBox>
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMimeData>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStatusBar>
#include <QSvgRenderer>
#include <QTabBar>
#include <QTemporaryDir>

class TestExports : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void exportsParse();
    void exportToUnwritablePlaceFails();

private:
    std::unique_ptr<WindowFixture> open(const QString& dir, const QString& text) {
        return openWindow(dir, text);
    }
    QTemporaryDir tmp_;
};

void TestExports::initTestCase() {
    isolateSettings();
    QVERIFY(tmp_.isValid());
}

void TestExports::exportsParse() {
    auto f = open(kDemoModel, QStringLiteral("hello"));
    QVERIFY(f);
    for (int i = 0; i < 3; ++i)
        f->controller->step();
    QVERIFY(f->controller->waitUntilIdle());
    const auto r = f->controller->current();
    const auto& snap = *r->snapshot;
    const int T = static_cast<int>(snap.tgtTokens.size()), S = static_cast<int>(snap.srcTokens.size());
    QCOMPARE(T, 4);
    QCOMPARE(S, 7);
    QTemporaryDir dir;
    QString error;
    auto* page = f->window.findChild<QWidget*>(QStringLiteral("attentionPage"));
    QVERIFY(page);

    // Pictures.
    const auto png = dir.filePath(QStringLiteral("view.png"));
    QVERIFY2(ui::Exporter::savePicture(page, png, 2.0, &error), qPrintable(error));
    const QImage img(png);
    QVERIFY(!img.isNull());
    QCOMPARE(img.size(), page->size() * 2);
    const auto svg = dir.filePath(QStringLiteral("view.svg"));
    QVERIFY2(ui::Exporter::savePicture(page, svg, 1.0, &error), qPrintable(error));
    QSvgRenderer renderer(svg);
    QVERIFY(renderer.isValid());
    const auto pdf = dir.filePath(QStringLiteral("view.pdf"));
    QVERIFY2(ui::Exporter::savePicture(page, pdf, 1.0, &error), qPrintable(error));
    QFile pdfFile(pdf);
    QVERIFY(pdfFile.open(QIODevice::ReadOnly));
    const auto pdfBytes = pdfFile.readAll();
    QVERIFY(pdfBytes.startsWith("%PDF-"));
    QVERIFY(pdfBytes.trimmed().endsWith("%%EOF"));
    QVERIFY(!ui::Exporter::savePicture(page, dir.filePath(QStringLiteral("view.bmpx")), 1.0, &error));
    QVERIFY(error.contains(QStringLiteral("bmpx")));

    // One head as CSV: a header and T rows of S weights for cross-attention.
    const auto csv = dir.filePath(QStringLiteral("head.csv"));
    QVERIFY2(ui::Exporter::saveHeadCsv(snap, core::AttentionKind::Cross, 1, 2, csv, &error),
             qPrintable(error));
    QFile csvFile(csv);
    QVERIFY(csvFile.open(QIODevice::ReadOnly));
    const auto lines = QString::fromUtf8(csvFile.readAll()).split(QStringLiteral("\r\n"), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 1 + T);
    for (int q = 0; q < T; ++q) {
        const auto cells = lines[q + 1].split(QLatin1Char(','));
        QCOMPARE(cells.size(), 1 + S);
        for (int k = 0; k < S; ++k)
            QCOMPARE(cells[k + 1].toFloat(), snap.cross.at(1, 2, q, k));
    }
    // Every head of a kind as long-form CSV: L·H·T rows.
    const auto all = dir.filePath(QStringLiteral("all.csv"));
    QVERIFY2(ui::Exporter::saveKindCsv(snap, core::AttentionKind::Decoder, all, &error), qPrintable(error));
    QFile allFile(all);
    QVERIFY(allFile.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(allFile.readAll()).split(QStringLiteral("\r\n"), Qt::SkipEmptyParts).size(),
             1 + 2 * 4 * T);

    // JSON in the dump format, with the right shapes.
    const auto kindJson = dir.filePath(QStringLiteral("cross.json"));
    QVERIFY2(ui::Exporter::saveKindJson(snap, core::AttentionKind::Cross, r->sourceText, r->decodedText,
                                        kindJson, &error),
             qPrintable(error));
    QFile kf(kindJson);
    QVERIFY(kf.open(QIODevice::ReadOnly));
    QJsonParseError perr;
    const auto doc = QJsonDocument::fromJson(kf.readAll(), &perr);
    QVERIFY2(perr.error == QJsonParseError::NoError, qPrintable(perr.errorString()));
    const auto cross =
        doc.object()[QStringLiteral("attention")].toObject()[QStringLiteral("cross")].toArray();
    QCOMPARE(cross.size(), 2);
    QCOMPARE(cross[0].toArray().size(), 4);
    QCOMPARE(cross[0].toArray()[0].toArray().size(), T);
    QCOMPARE(cross[0].toArray()[0].toArray()[0].toArray().size(), S);
    QVERIFY(!doc.object()[QStringLiteral("attention")].toObject().contains(QStringLiteral("encoder")));
    QCOMPARE(doc.object()[QStringLiteral("src_text")].toString(), QStringLiteral("hello"));
    QCOMPARE(doc.object()[QStringLiteral("tgt_tokens")].toArray().size(), T);
    QCOMPARE(doc.object()[QStringLiteral("next_token_logprobs")].toArray().size(), 99);

    const auto headJson = dir.filePath(QStringLiteral("head.json"));
    QVERIFY2(ui::Exporter::saveHeadJson(snap, core::AttentionKind::Decoder, 0, core::kMeanHead, r->sourceText,
                                        r->decodedText, headJson, &error),
             qPrintable(error));
    QFile hf(headJson);
    QVERIFY(hf.open(QIODevice::ReadOnly));
    const auto hdoc = QJsonDocument::fromJson(hf.readAll(), &perr);
    QVERIFY2(perr.error == QJsonParseError::NoError, qPrintable(perr.errorString()));
    const auto dec =
        hdoc.object()[QStringLiteral("attention")].toObject()[QStringLiteral("decoder")].toArray();
    QCOMPARE(dec.size(), 1);
    QCOMPARE(dec[0].toArray().size(), 1);
    const auto m = dec[0].toArray()[0].toArray();
    QCOMPARE(m.size(), T);
    float mean = 0.0f;
    for (int h = 0; h < 4; ++h)
        mean += snap.decoder.at(0, h, 3, 1) / 4.0f;
    QVERIFY(std::abs(m[3].toArray()[1].toDouble() - mean) < 1e-6);
    QCOMPARE(hdoc.object()[QStringLiteral("selection")].toObject()[QStringLiteral("head")].toString(),
             QStringLiteral("mean"));
}

void TestExports::exportToUnwritablePlaceFails() {
    auto f = open(kDemoModel, QStringLiteral("hi"));
    QVERIFY(f);
    QString error;
    const QString path = QStringLiteral("/nonexistent-dir/attention.csv");
    QVERIFY(!ui::Exporter::saveKindCsv(*f->controller->current()->snapshot, core::AttentionKind::Encoder,
                                       path, &error));
    QVERIFY2(error.contains(QStringLiteral("/nonexistent-dir")), qPrintable(error));
    QVERIFY(!QFile::exists(path));
    // A head that does not exist is refused with its coordinates.
    QVERIFY(!ui::Exporter::saveHeadCsv(*f->controller->current()->snapshot, core::AttentionKind::Encoder, 7,
                                       0, QDir::temp().filePath(QStringLiteral("x.csv")), &error));
    QVERIFY2(error.contains(QStringLiteral("layer 7")), qPrintable(error));
}

QTEST_MAIN(TestExports)
#include "test_exports.moc"
