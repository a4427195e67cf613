// The positional-encodings tab as a real widget, offscreen: what it plots against the model's own table.

#include "tests/support/TestModels.h"
#include "ui/base/QCustomPlotInclude.h"
#include "ui/positional/PositionalView.h"
#include "ui/positional/RotationPlot.h"

#include <QComboBox>
#include <QDir>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QSet>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using core::Architecture;
using core::PositionalEncoding;

class TestPositionalView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void heatmapEqualsTable();
    void positionsLimitEveryPlot();
    void rotationLabel_data();
    void rotationLabel();
    void cosineDiagonalIsOne();
    void dotDiagonalIsHalfWidth();
    void explanationWithoutTable_data();
    void explanationWithoutTable();
    void dimsFieldChangesCurves();
    void sideSelectorSwitchesTable();
    void decoderOnlyHasNoSideSelector();
    void everyControlHasToolTip();
    void grabForInspection();
    void offsetChangesThePicture();
    void defaultDimsAreSmooth();
    void positionsLimitSaysWhy();
};

namespace {

std::shared_ptr<const core::Model> model(PositionalEncoding pos,
                                         Architecture arch = Architecture::EncoderDecoder) {
    return randomModel(smallConfig(arch, pos), 7);
}

} // namespace

void TestPositionalView::heatmapEqualsTable() {
    const auto m = model(PositionalEncoding::Sinusoidal);
    ui::PositionalView view;
    view.setModel(m);
    QVERIFY(!view.showsExplanation());
    const auto table = m->positionalTable(true);
    const int d = m->config().dModel, n = m->config().maxLen; // 64 rows: all shown by default
    QCOMPARE(int(table.size()), n * d);
    QCOMPARE(view.positions(), n);
    QCOMPARE(view.tableCells(), QSize(d, n));
    for (int pos = 0; pos < n; ++pos)
        for (int dim = 0; dim < d; ++dim)
            QCOMPARE(view.tableValueAt(pos, dim), double(table[size_t(pos) * d + dim]));
    // The colour range is symmetric, so zero sits mid-scale.
    auto* map = qobject_cast<QCPColorMap*>(view.tablePlot()->plottable(0));
    QVERIFY(map);
    QVERIFY(!map->interpolate());
    QCOMPARE(map->dataRange().lower, -map->dataRange().upper);
    QVERIFY(map->dataRange().upper > 0.99 && map->dataRange().upper <= 1.0);
}

void TestPositionalView::positionsLimitEveryPlot() {
    const auto m = model(PositionalEncoding::Sinusoidal);
    ui::PositionalView view;
    view.setModel(m);
    view.findChild<QSpinBox*>(QStringLiteral("positionsSpin"))->setValue(20);
    QCOMPARE(view.positions(), 20);
    QCOMPARE(view.tableCells(), QSize(m->config().dModel, 20));
    // The similarity is computed off the window's thread: it arrives through the event loop.
    QVERIFY(view.busy());
    QTRY_VERIFY(!view.busy());
    QVERIFY(!std::isnan(view.similarityAt(19, 19)));
    QVERIFY(std::isnan(view.similarityAt(20, 20)));
    QCOMPARE(view.curvePlot()->graph(1)->dataCount(), 20); // the dots: one per position of the table
    QVERIFY(view.rotationText().contains(QStringLiteral("over %1 positions").arg(20 - view.offset())));
}

void TestPositionalView::rotationLabel_data() {
    QTest::addColumn<int>("kind");
    QTest::addColumn<int>("pair");
    QTest::addColumn<int>("offset");
    QTest::newRow("sinusoidal i=0 k=1") << int(PositionalEncoding::Sinusoidal) << 0 << 1;
    QTest::newRow("sinusoidal i=3 k=5") << int(PositionalEncoding::Sinusoidal) << 3 << 5;
    QTest::newRow("sinusoidal i=15 k=40") << int(PositionalEncoding::Sinusoidal) << 15 << 40;
    QTest::newRow("learned i=0 k=1") << int(PositionalEncoding::Learned) << 0 << 1;
    QTest::newRow("learned i=3 k=5") << int(PositionalEncoding::Learned) << 3 << 5;
}

void TestPositionalView::rotationLabel() {
    QFETCH(int, kind);
    QFETCH(int, pair);
    QFETCH(int, offset);
    const bool sinusoidal = PositionalEncoding(kind) == PositionalEncoding::Sinusoidal;
    ui::PositionalView view;
    view.setModel(model(PositionalEncoding(kind)));
    view.findChild<QSpinBox*>(QStringLiteral("pairSpin"))->setValue(pair);
    view.findChild<QSpinBox*>(QStringLiteral("offsetSpin"))->setValue(offset);
    QCOMPARE(view.pair(), pair);
    QCOMPARE(view.offset(), offset);
    const double err = view.rotationError();
    const QString text = view.rotationText();
    qInfo("%s", qPrintable(text));
    QVERIFY(text.contains(QString::number(err, 'g', 2)));
    QVERIFY(text.contains(QStringLiteral("PE(pos+%1)").arg(offset)));
    QVERIFY(text.contains(QStringLiteral("over %1 positions").arg(view.positions() - offset)));
    if (sinusoidal) {
        QVERIFY2(err < 1e-5, qPrintable(text));
        QVERIFY(!text.contains(QStringLiteral("no exact rotation")));
        QVERIFY(view.frequencyText().contains(QStringLiteral(" rad")));
        QVERIFY(view.frequencyText().contains(QStringLiteral("°")));
    } else {
        // Random entries: the error is of the order of the values themselves.
        QVERIFY2(err > 1e-2, qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("no exact rotation")));
    }
}

void TestPositionalView::cosineDiagonalIsOne() {
    ui::PositionalView view;
    view.setModel(model(PositionalEncoding::Learned));
    view.findChild<QComboBox*>(QStringLiteral("similarityBox"))->setCurrentIndex(1); // dot
    view.setCosineSimilarity(true);
    QTRY_VERIFY(!view.busy());
    for (int a = 0; a < view.positions(); ++a)
        QVERIFY(std::abs(view.similarityAt(a, a) - 1.0) < 1e-9);
    // Off the diagonal a random table is far from parallel.
    QVERIFY(std::abs(view.similarityAt(0, 1)) < 0.9);
    QCOMPARE(view.similarityAt(3, 9), view.similarityAt(9, 3));
}

void TestPositionalView::dotDiagonalIsHalfWidth() {
    // Each (sin, cos) pair has length 1, so |PE(pos)|² = dModel/2 for every position.
    const auto m = model(PositionalEncoding::Sinusoidal);
    ui::PositionalView view;
    view.setModel(m);
    view.findChild<QComboBox*>(QStringLiteral("similarityBox"))->setCurrentIndex(1);
    QTRY_VERIFY(!view.busy());
    for (int a = 0; a < view.positions(); a += 7)
        QVERIFY(std::abs(view.similarityAt(a, a) - m->config().dModel / 2.0) < 1e-4);
    QVERIFY(std::abs(view.similarityAt(0, 5) - m->config().dModel / 2.0) > 0.1);
}

void TestPositionalView::explanationWithoutTable_data() {
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("phrase");
    QTest::addColumn<QString>("summary");
    QTest::newRow("rope") << int(PositionalEncoding::Rope) << QStringLiteral("queries and keys")
                          << QStringLiteral("rotary (RoPE): rotations inside attention, no table");
    QTest::newRow("none") << int(PositionalEncoding::None) << QStringLiteral("no positional encoding")
                          << QStringLiteral("no positional encoding");
}

void TestPositionalView::explanationWithoutTable() {
    QFETCH(int, kind);
    QFETCH(QString, phrase);
    QFETCH(QString, summary);
    ui::PositionalView view;
    view.setModel(model(PositionalEncoding::Sinusoidal));
    QVERIFY(!view.showsExplanation());
    view.setModel(model(PositionalEncoding(kind), Architecture::DecoderOnly));
    QVERIFY(view.showsExplanation());
    QVERIFY2(view.explanation().contains(phrase), qPrintable(view.explanation()));
    // The summary line says what the model has in words, not the config's bare "rope".
    QCOMPARE(view.findChild<QLabel*>(QStringLiteral("positionalSummary"))->text(), summary);
    QCOMPARE(view.tableCells(), QSize(0, 0));
    QCOMPARE(view.curveCount(), 0);
}

void TestPositionalView::dimsFieldChangesCurves() {
    ui::PositionalView view;
    view.setModel(model(PositionalEncoding::Sinusoidal));
    QCOMPARE(view.curveCount(), 4); // the default "4, 5, 6, 7" (defaultDimsAreSmooth)
    auto* edit = view.findChild<QLineEdit*>(QStringLiteral("dimsEdit"));
    QVERIFY(edit);
    edit->clear();
    QTest::keyClicks(edit, QStringLiteral("2, 9"));
    QTest::keyClick(edit, Qt::Key_Return);
    QCOMPARE(view.curveCount(), 2);
    QCOMPARE(view.curveDims(), (QVector<int>{2, 9}));
    QCOMPARE(view.curvePlot()->graph(2)->name(),
             QStringLiteral("dim 9: cos(pos·θ₄)")); // a line and dots each
    view.setCurveDims(QStringLiteral("0-5, 31, 32, x"));
    QCOMPARE(view.curveCount(), 7); // 32 and x are not dimensions of a 32-wide table
    int legendItems = 0;            // the legend's grid counts empty cells of its last row too
    for (int j = 0; j < view.curvePlot()->legend->itemCount(); ++j)
        legendItems += view.curvePlot()->legend->item(j) != nullptr;
    QCOMPARE(legendItems, 7);
    view.setCurveDims(QString());
    QCOMPARE(view.curveCount(), 0);
}

void TestPositionalView::sideSelectorSwitchesTable() {
    const auto m = model(PositionalEncoding::Learned);
    const auto src = m->positionalTable(true), tgt = m->positionalTable(false);
    QVERIFY(src != tgt);
    ui::PositionalView view;
    view.setModel(m);
    auto* side = view.findChild<QComboBox*>(QStringLiteral("sideBox"));
    QVERIFY(!side->isHidden());
    QVERIFY(view.sourceSide());
    QCOMPARE(view.tableValueAt(5, 3), double(src[5 * 32 + 3]));
    side->setCurrentIndex(1);
    QVERIFY(!view.sourceSide());
    QCOMPARE(view.tableValueAt(5, 3), double(tgt[5 * 32 + 3]));
}

void TestPositionalView::decoderOnlyHasNoSideSelector() {
    const auto m = model(PositionalEncoding::Learned, Architecture::DecoderOnly);
    ui::PositionalView view;
    view.setModel(m);
    QVERIFY(view.findChild<QComboBox*>(QStringLiteral("sideBox"))->isHidden());
    QCOMPARE(view.tableValueAt(2, 1), double(m->positionalTable(false)[2 * 32 + 1]));
}

void TestPositionalView::offsetChangesThePicture() {
    // The offset k changed only a number under the plot; the red arc now goes from PE(0) to PE(k).
    ui::PositionalView view;
    view.setModel(model(PositionalEncoding::Sinusoidal));
    view.resize(1200, 800);
    view.setPair(2);
    view.setOffset(1);
    const QImage one = view.rotationPlot()->toPixmap(400, 400).toImage();
    const QString oneText = view.offsetText();
    view.findChild<QSpinBox*>(QStringLiteral("offsetSpin"))->setValue(5);
    QCOMPARE(view.offset(), 5);
    const QImage five = view.rotationPlot()->toPixmap(400, 400).toImage();
    int differ = 0;
    for (int y = 0; y < one.height(); ++y)
        for (int x = 0; x < one.width(); ++x)
            differ += one.pixel(x, y) != five.pixel(x, y);
    qInfo("k = 1 → 5: %d of %d pixels of the rotation panel changed; arc label \"%s\" → \"%s\"", differ,
          one.width() * one.height(), qPrintable(oneText), qPrintable(view.offsetText()));
    QVERIFY(differ > 200);
    // θ₂ = 10000^(−4/32) = 0.3162 rad; 5·θ₂ = 90.6°.
    const double expected = 5 * std::exp(-4.0 * std::log(10000.0) / 32) * 180 / M_PI;
    QVERIFY2(view.offsetText().contains(QStringLiteral("k = 5")) &&
                 view.offsetText().contains(QString::number(expected, 'f', 1)),
             qPrintable(view.offsetText()));
    // The arc turns clockwise by k·θ, as the text says, past 180° too: 12·θ₂ = 217.4° is drawn as −217.4°,
    // not as the short way's +142.6°.
    auto* rotation = view.findChild<ui::RotationPlot*>();
    QVERIFY(rotation);
    QVERIFY2(std::abs(rotation->arcDegrees() + expected) < 1e-6,
             qPrintable(QString::number(rotation->arcDegrees())));
    view.findChild<QSpinBox*>(QStringLiteral("offsetSpin"))->setValue(12);
    const double twelve = 12 * std::exp(-4.0 * std::log(10000.0) / 32) * 180 / M_PI;
    QVERIFY(twelve > 180);
    QVERIFY2(std::abs(rotation->arcDegrees() + twelve) < 1e-6,
             qPrintable(QString::number(rotation->arcDegrees())));
    // The circle's points say which position each is: a colour from dark to light, and numbers on the first
    // turn from 0, at least 30° apart (θ₂ = 18.1°: every 2nd position, up to 18 · 18.1° = 326°).
    const auto numbered = rotation->numberedPositions();
    qInfo("numbered positions: %s", qPrintable([&] {
              QStringList s;
              for (int p : numbered)
                  s << QString::number(p);
              return s.join(QLatin1Char(' '));
          }()));
    QVERIFY(!numbered.isEmpty() && numbered.size() <= 12);
    QCOMPARE(numbered.front(), 0);
    const double theta2 = std::exp(-4.0 * std::log(10000.0) / 32) * 180 / M_PI;
    QVERIFY((numbered.at(1) - numbered.at(0)) * theta2 >= 30.0);
    QVERIFY(numbered.back() * theta2 < 360.0 - 30.0 + 1e-9);
    int points = 0;
    QSet<QRgb> colours;
    for (int i = 0; i < rotation->plot()->plottableCount(); ++i)
        if (auto* c = qobject_cast<QCPCurve*>(rotation->plot()->plottable(i));
            c && c->lineStyle() == QCPCurve::lsNone) {
            points += c->dataCount();
            colours.insert(c->scatterStyle().pen().color().rgb());
        }
    QCOMPARE(points, 64);
    QVERIFY2(colours.size() >= 8, qPrintable(QString::number(colours.size())));
}

void TestPositionalView::defaultDimsAreSmooth() {
    // The default "0, 1, 6, 7" drew dims 0 and 1, a radian per position: a zig-zag through whole positions.
    ui::PositionalView view;
    view.setModel(model(PositionalEncoding::Sinusoidal)); // d_model 32, max_len 64
    for (const int dim : view.curveDims()) {
        const double period = 2 * M_PI / std::exp(-2.0 * (dim / 2) * std::log(10000.0) / 32);
        QVERIFY2(period >= 8.0, qPrintable(QStringLiteral("dim %1: period %2").arg(dim).arg(period)));
    }
    QCOMPARE(view.curveDims(), (QVector<int>{4, 5, 6, 7})); // periods 19.9 and 35.3 positions
    QVERIFY(view.curveNoteText().isEmpty());
    // Between the samples the line is the formula, so even a fast dimension is drawn as a wave.
    auto* line = view.curvePlot()->graph(0);
    QVERIFY(line->dataCount() > 7 * 63);
    const double theta = std::exp(-4.0 * std::log(10000.0) / 32); // dim 4 = sin of pair 2
    QVERIFY(std::abs(line->data()->at(3)->value - std::sin(3.0 / 8 * theta)) < 1e-9);
    // Asking for dims 0 and 1 says they are too fast for whole positions.
    view.setCurveDims(QStringLiteral("0, 1, 6"));
    QVERIFY2(view.curveNoteText().contains(QStringLiteral("dim 0 (a period every 6.3 positions)")) &&
                 view.curveNoteText().contains(QStringLiteral("dim 1")) &&
                 !view.curveNoteText().contains(QStringLiteral("dim 6")),
             qPrintable(view.curveNoteText()));
    // A learned table has no formula: a column that turns at most positions is rough, not aliased.
    ui::PositionalView learned;
    learned.setModel(model(PositionalEncoding::Learned));
    learned.setCurveDims(QStringLiteral("0"));
    QVERIFY2(learned.curveNoteText().startsWith(QStringLiteral("Rough: dim 0")) &&
                 !learned.curveNoteText().contains(QStringLiteral("alias")),
             qPrintable(learned.curveNoteText()));
}

void TestPositionalView::positionsLimitSaysWhy() {
    // Positions stopped at max_len without a word; now the range's end is named beside it.
    ui::PositionalView view;
    view.setModel(model(PositionalEncoding::Sinusoidal));
    auto* spin = view.findChild<QSpinBox*>(QStringLiteral("positionsSpin"));
    QCOMPARE(spin->maximum(), 64);
    QCOMPARE(view.positionsLimitText(), QStringLiteral("of 64 = max_len"));
    spin->setValue(500);
    QCOMPARE(view.positions(), 64);
}

void TestPositionalView::everyControlHasToolTip() {
    ui::PositionalView view;
    view.setModel(model(PositionalEncoding::Sinusoidal));
    for (const char* name :
         {"sideBox", "positionsSpin", "dimsEdit", "similarityBox", "pairSpin", "offsetSpin"}) {
        auto* w = view.findChild<QWidget*>(QLatin1String(name));
        QVERIFY2(w && !w->toolTip().isEmpty(), name);
    }
}

void TestPositionalView::grabForInspection() {
    // Pictures for a person to look at: ATTNSCOPE_GRAB_DIR=/some/dir keeps them; otherwise they go to a
    // temporary folder and are only checked to be real pictures (many colours, not a blank frame).
    QTemporaryDir tmp;
    const QString dir = qEnvironmentVariableIsEmpty("ATTNSCOPE_GRAB_DIR")
                            ? tmp.path()
                            : qEnvironmentVariable("ATTNSCOPE_GRAB_DIR");
    auto colours = [](const QString& path) {
        const QImage img(path);
        QSet<QRgb> seen;
        for (int y = 0; y < img.height(); y += 3)
            for (int x = 0; x < img.width(); x += 3)
                seen.insert(img.pixel(x, y));
        return seen.size();
    };
    for (auto kind :
         {PositionalEncoding::Sinusoidal, PositionalEncoding::Learned, PositionalEncoding::Rope}) {
        ui::PositionalView view;
        view.setModel(model(kind));
        view.setPair(2);
        view.resize(1200, 800);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const QString path =
            QDir(dir).filePath(QStringLiteral("positional-%1.png").arg(core::toString(kind)));
        QVERIFY(view.grab().save(path));
        QVERIFY2(colours(path) > (kind == PositionalEncoding::Rope ? 2 : 50), qPrintable(path));
        qInfo("saved %s", qPrintable(path));
    }
    ui::PositionalView view;
    view.setModel(
        core::Model::load(ATTNSCOPE_SOURCE_DIR "/resources/models/demo-random", core::DeviceChoice::Cpu));
    QCOMPARE(view.positions(), 128); // min(max_len, 128)
    view.resize(1200, 800);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QString path = QDir(dir).filePath(QStringLiteral("positional-demo-random.png"));
    QVERIFY(view.grab().save(path));
    QVERIFY2(colours(path) > 50, qPrintable(path));
    qInfo("saved %s", qPrintable(path));
}

QTEST_MAIN(TestPositionalView)
#include "test_positionalview.moc"
