// Exports from the window: pictures that open, CSV and JSON that parse with the right shapes and values,
// and failures that say why and leave nothing behind.

#include "tests/support/WindowFixture.h"

#include "core/run/Session.h"
#include "ui/attention/CandidatesChart.h"
#include "ui/attention/TokenStrip.h"
#include "ui/base/QCustomPlotInclude.h"
#include "ui/base/ViewState.h"
#include "ui/export/Exporter.h"
#include "ui/views/AttentionGrid.h"
#include "ui/views/HeatmapView.h"

#include <QAbstractButton>
#include <QAbstractSpinBox>
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMimeData>
#include <QProcess>
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
    void jsonReproducesTheRun();

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
    // The heatmap and the grid's tiles are images; JPEG would blur their cell edges.
    QVERIFY(pdfBytes.contains("/Image"));
    QVERIFY2(!pdfBytes.contains("/DCTDecode"), "an image in the page's PDF was stored as JPEG");
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

void TestExports::jsonReproducesTheRun() {
    // A JSON export says which weights (the SHA-256 sha256sum prints), how the run decoded, the step, the
    // forced tokens and the vocabulary behind next_token_logprobs: enough to run it again, token for token.
    const QString dir = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/reverse");
    auto model = core::Model::load(dir.toStdString());
    core::Session session(model);
    core::SamplingSettings sampling;
    sampling.greedy = false;
    sampling.temperature = 0.7;
    sampling.topK = 4;
    sampling.seed = 5;
    session.setSampling(sampling);
    session.analyze("abcdef");
    session.force(model->targetTokenizer().vocab().find("c"));
    session.step();
    session.step();
    auto r = std::make_shared<ui::RunResult>();
    r->model = model;
    r->snapshot = std::make_shared<const core::AttentionSnapshot>(session.snapshot());
    r->step = static_cast<int>(session.decodedCount());
    const QString run = ui::Exporter::runFields(*r, sampling);
    const QString path = tmp_.filePath(QStringLiteral("all.json"));
    QString error;
    QVERIFY2(ui::Exporter::saveKindJson(*r->snapshot, core::AttentionKind::Cross, QStringLiteral("abcdef"),
                                        QString(), path, &error, run),
             qPrintable(error));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const auto j = QJsonDocument::fromJson(file.readAll()).object();
    const auto info = j[QStringLiteral("run")].toObject();
    QCOMPARE(info[QStringLiteral("model_dir")].toString(), QFileInfo(dir).absoluteFilePath());
    QProcess sum;
    sum.start(QStringLiteral("sha256sum"), {dir + QStringLiteral("/model.safetensors")});
    QVERIFY(sum.waitForFinished(30000));
    const QString expected = QString::fromLatin1(sum.readAllStandardOutput()).section(QLatin1Char(' '), 0, 0);
    QCOMPARE(info[QStringLiteral("weights_sha256")].toString(), expected);
    const auto decode = info[QStringLiteral("decode")].toObject();
    QCOMPARE(decode[QStringLiteral("mode")].toString(), QStringLiteral("sampled"));
    QCOMPARE(decode[QStringLiteral("temperature")].toDouble(), 0.7);
    QCOMPARE(decode[QStringLiteral("top_k")].toInt(), 4);
    QCOMPARE(decode[QStringLiteral("seed")].toInt(), 5);
    QCOMPARE(info[QStringLiteral("step")].toInt(), 3);
    QCOMPARE(j[QStringLiteral("forced")].toArray(), QJsonArray({1}));
    const auto vocab = j[QStringLiteral("next_token_vocab")].toArray();
    QCOMPARE(vocab.size(), j[QStringLiteral("next_token_logprobs")].toArray().size());
    for (int id = 0; id < vocab.size(); ++id)
        QCOMPARE(vocab[id].toString().toStdString(), model->targetTokenizer().vocab().token(id));
    // Each layer's mean over the heads, [L][T][S], as computed here.
    const auto means = j[QStringLiteral("layer_mean")].toObject()[QStringLiteral("cross")].toArray();
    const auto& b = r->snapshot->cross;
    QCOMPARE(means.size(), b.layers);
    double worst = 0;
    for (int l = 0; l < b.layers; ++l)
        for (int q = 0; q < b.queries; ++q)
            for (int k = 0; k < b.keys; ++k) {
                double m = 0;
                for (int h = 0; h < b.heads; ++h)
                    m += b.at(l, h, q, k) / b.heads;
                worst = std::max(worst, std::abs(means[l].toArray()[q].toArray()[k].toDouble() - m));
            }
    QVERIFY(worst < 1e-6);
    // The run again from what the file says: the same target, token for token.
    core::SamplingSettings again;
    again.greedy = decode[QStringLiteral("mode")].toString() == QLatin1String("greedy");
    again.temperature = decode[QStringLiteral("temperature")].toDouble();
    again.topK = decode[QStringLiteral("top_k")].toInt();
    again.topP = decode[QStringLiteral("top_p")].toDouble();
    again.seed = static_cast<uint64_t>(decode[QStringLiteral("seed")].toInt());
    core::Session replay(core::Model::load(info[QStringLiteral("model_dir")].toString().toStdString()));
    replay.setSampling(again);
    replay.analyze(j[QStringLiteral("src_text")].toString().toStdString());
    const auto tgt = j[QStringLiteral("tgt_tokens")].toArray();
    const auto forced = j[QStringLiteral("forced")].toArray();
    for (int i = 1; i < tgt.size(); ++i) {
        if (forced.contains(i))
            replay.force(model->targetTokenizer().vocab().find(tgt[i].toString().toStdString()));
        else
            replay.step();
        QCOMPARE(QString::fromStdString(replay.snapshot().tgtTokens.back().text), tgt[i].toString());
    }
}

QTEST_MAIN(TestExports)
#include "test_exports.moc"
