// The main window with its real widgets, offscreen: typing, unknown characters, errors, model folders,
// keyboard and mouse, settings, help and tooltips, each driven the way a user drives it.

#include "tests/support/WindowFixture.h"

#include "core/base/PackedWeights.h"
#include "ui/attention/CandidatesChart.h"
#include "ui/attention/TokenStrip.h"
#include "ui/base/AppSettings.h"
#include "ui/base/QCustomPlotInclude.h"
#include "ui/base/ViewState.h"
#include "ui/export/Exporter.h"
#include "ui/views/AttentionGrid.h"
#include "ui/views/HeatmapView.h"
#include "ui/window/HelpText.h"
#include "ui/window/WindowDriver.h"

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QAbstractSpinBox>
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QElapsedTimer>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMenuBar>
#include <QMimeData>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStatusBar>
#include <QSvgRenderer>
#include <QTabBar>
#include <QTabWidget>
#include <QTemporaryDir>

class TestMainWindow : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void typingUpdatesGrid();
    void typingIsDebounced();
    void unknownCharactersAreMarked();
    void badFolderKeepsModel();
    void tooLongAndEmptyInput();
    void keyboardMovesSelection();
    void tokenClickMarksRow();
    void decoderOnlyModel();
    void modelWithoutPositions();
    void settingsRemembered();
    void dropFolderOpensModel();
    void aboutNamesVersions();
    void everyControlHasToolTip();

private:
    std::unique_ptr<WindowFixture> open(const QString& dir, const QString& text) {
        return openWindow(dir, text);
    }
    QTemporaryDir tmp_;
    QString wideModel_;
};

void TestMainWindow::initTestCase() {
    isolateSettings();
    QVERIFY(tmp_.isValid());
    wideModel_ = saveWideModel(tmp_.path());
}

void TestMainWindow::typingUpdatesGrid() {
    auto f = open(wideModel_, QStringLiteral("abc"));
    QVERIFY(f);
    auto* grid = f->window.findChild<ui::AttentionGrid*>(QStringLiteral("attentionGrid"));
    QVERIFY(grid);
    QCOMPARE(grid->layers(), 3);
    QCOMPARE(grid->heads(), 5);
    for (int l = 0; l < 3; ++l)
        for (int h = core::kMeanHead; h < 5; ++h)
            QVERIFY2(!grid->tileRect(l, h).isEmpty(), qPrintable(QStringLiteral("L%1 H%2").arg(l).arg(h)));
    auto r = f->controller->current();
    QVERIFY(r);
    QCOMPARE(r->snapshot->srcTokens.size(), std::size_t(5)); // <bos> a b c <eos>
    QCOMPARE(r->snapshot->encoder.queries, 5);
    // Typing more re-runs the analysis: the grid follows the new length.
    QTest::keyClicks(f->edit, QStringLiteral("de"));
    QVERIFY(f->controller->waitUntilIdle());
    r = f->controller->current();
    QCOMPARE(r->snapshot->encoder.queries, 7);
    QCOMPARE(r->sourceText, QStringLiteral("abcde"));
    const auto shot = qEnvironmentVariable("ATTNSCOPE_SCREENSHOT");
    if (!shot.isEmpty())
        QVERIFY(f->window.grab().save(shot));
}

void TestMainWindow::typingIsDebounced() {
    auto f = open(kDemoModel, QString());
    QVERIFY(f);
    QSignalSpy results(f->controller, &ui::AnalysisController::resultChanged);
    // Ten keystrokes faster than the debounce: one analysis, of the final text (latest wins).
    QTest::keyClicks(f->edit, QStringLiteral("abcdefghij"));
    QVERIFY(f->controller->waitUntilIdle());
    QCOMPARE(results.count(), 1);
    QCOMPARE(f->controller->current()->sourceText, QStringLiteral("abcdefghij"));
    QVERIFY(!f->window.findChild<QLabel*>(QStringLiteral("busyLabel"))->isVisible());
    // Work that outlasts a glance shows the busy indicator, and it goes away when done.
    QSignalSpy busy(f->controller, &ui::AnalysisController::busyChanged);
    f->controller->runToEnd();
    QVERIFY(f->controller->waitUntilIdle(60000));
    QTest::qWait(200);
    if (!busy.isEmpty())
        QCOMPARE(busy.last().at(0).toBool(), false);
    QVERIFY(!f->window.findChild<QLabel*>(QStringLiteral("busyLabel"))->isVisible());
}

void TestMainWindow::unknownCharactersAreMarked() {
    auto f = open(kDemoModel, QStringLiteral("hi"));
    QVERIFY(f);
    f->edit->insert(QStringLiteral("\u00e9")); // not in the vocabulary
    QVERIFY(f->controller->waitUntilIdle());
    auto* strip = f->window.findChild<ui::TokenStrip*>(QStringLiteral("sourceStrip"));
    QVERIFY(strip);
    QCOMPARE(strip->displayTexts(),
             (QStringList{QStringLiteral("<bos>"), QStringLiteral("h"), QStringLiteral("i"),
                          QStringLiteral("\u27E8?\u00e9\u27E9"), QStringLiteral("<eos>")}));
    QVERIFY(f->controller->current()->snapshot->srcTokens[3].unknown);
}

void TestMainWindow::badFolderKeepsModel() {
    auto f = open(kDemoModel, QStringLiteral("hi"));
    QVERIFY(f);
    const auto before = f->window.model();
    QTemporaryDir broken;
    QFile cfg(broken.filePath(QStringLiteral("config.json")));
    QVERIFY(cfg.open(QIODevice::WriteOnly));
    cfg.write("{\"d_model\": 30, \"heads\": 4}");
    cfg.close();
    QVERIFY(!f->window.opener()->open(broken.path()));
    QVERIFY2(f->window.lastError().contains(QStringLiteral("not divisible")),
             qPrintable(f->window.lastError()));
    QVERIFY(f->window.statusBar()->currentMessage().contains(QStringLiteral("Cannot open model")));
    auto* label = f->window.findChild<QLabel*>(QStringLiteral("messageLabel"));
    QVERIFY(label && label->isVisible() && label->text().contains(QStringLiteral("config.json")));
    QCOMPARE(f->window.model(), before);
    QVERIFY(!f->window.opener()->open(QStringLiteral("/nonexistent-model-folder")));
    QVERIFY(f->window.lastError().contains(QStringLiteral("not a model directory")));
    QCOMPARE(f->window.model(), before);
    // The previous model still answers.
    QTest::keyClicks(f->edit, QStringLiteral("!"));
    QVERIFY(f->controller->waitUntilIdle());
    QCOMPARE(f->controller->current()->sourceText, QStringLiteral("hi!"));
    QCOMPARE(f->controller->current()->model, before);
}

void TestMainWindow::tooLongAndEmptyInput() {
    auto f = open(kDemoModel, QStringLiteral("ok"));
    QVERIFY(f);
    auto* step = f->window.findChild<QAction*>(QStringLiteral("stepAction"));
    QVERIFY(step->isEnabled());
    f->edit->setText(QString(300, QLatin1Char('a'))); // max_len 256: read up to it, the cut marked
    QVERIFY(f->controller->waitUntilIdle());
    QCoreApplication::processEvents();
    QVERIFY(f->window.lastError().isEmpty());
    QVERIFY(f->controller->current());
    QVERIFY(step->isEnabled());
    auto* strip = f->window.findChild<ui::TokenStrip*>(QStringLiteral("sourceStrip"));
    QCOMPARE(strip->count(), 256);
    QCOMPARE(strip->notRead(), 302 - 256);
    // Shortening the text takes the cut away.
    f->edit->setText(QStringLiteral("fine"));
    QVERIFY(f->controller->waitUntilIdle());
    QVERIFY(f->controller->current());
    QCOMPARE(strip->notRead(), 0);
    QVERIFY(f->window.lastError().isEmpty());
    QVERIFY(step->isEnabled());
    QSignalSpy cleared(f->controller, &ui::AnalysisController::cleared);
    f->edit->clear();
    QVERIFY(f->controller->waitUntilIdle());
    QCOMPARE(cleared.count(), 1);
    QVERIFY(!f->controller->current());
    QVERIFY(f->window.lastError().isEmpty());
}

void TestMainWindow::keyboardMovesSelection() {
    auto f = open(wideModel_, QStringLiteral("abc"));
    QVERIFY(f);
    auto* grid = f->window.findChild<ui::AttentionGrid*>(QStringLiteral("attentionGrid"));
    auto* state = f->window.viewState();
    grid->setFocus();
    QCOMPARE(state->layer(), 0);
    QCOMPARE(state->head(), 0);
    QTest::keyClick(grid, Qt::Key_Right);
    QTest::keyClick(grid, Qt::Key_Right);
    QCOMPARE(state->head(), 2);
    QTest::keyClick(grid, Qt::Key_PageDown);
    QCOMPARE(state->layer(), 1);
    for (int i = 0; i < 5; ++i)
        QTest::keyClick(grid, Qt::Key_Right);
    QCOMPARE(state->head(), core::kMeanHead); // the mean sits after the last head
    auto* heat = f->window.findChild<ui::HeatmapView*>();
    const auto& b = f->controller->current()->snapshot->encoder;
    double mean = 0;
    for (int h = 0; h < 5; ++h)
        mean += b.at(1, h, 2, 1) / 5.0;
    QVERIFY(std::abs(heat->valueAt(2, 1) - mean) < 1e-6);
    // Clicking a tile selects it.
    QTest::mouseClick(grid, Qt::LeftButton, {}, grid->tileRect(2, 3).center());
    QCOMPARE(state->layer(), 2);
    QCOMPARE(state->head(), 3);
    QCOMPARE(heat->valueAt(1, 1), static_cast<double>(b.at(2, 3, 1, 1)));
}

void TestMainWindow::tokenClickMarksRow() {
    auto f = open(kDemoModel, QStringLiteral("abc"));
    QVERIFY(f);
    auto* strip = f->window.findChild<ui::TokenStrip*>(QStringLiteral("sourceStrip"));
    auto* state = f->window.viewState();
    QTest::mouseClick(strip, Qt::LeftButton, {}, strip->chipRect(2).center());
    QCOMPARE(state->markIndex(), 2);
    QCOMPARE(state->markOrientation(), Qt::Horizontal); // encoder: a source token is a query row
    QCOMPARE(strip->marked(), 2);
    QTest::mouseClick(strip, Qt::LeftButton, Qt::ShiftModifier, strip->chipRect(1).center());
    QCOMPARE(state->markOrientation(), Qt::Vertical);
    QCOMPARE(state->markIndex(), 1);
    state->setKind(core::AttentionKind::Cross); // cross: a source token is a key column
    QTest::mouseClick(strip, Qt::LeftButton, {}, strip->chipRect(3).center());
    QCOMPARE(state->markOrientation(), Qt::Vertical);
    QCOMPARE(state->markIndex(), 3);
    auto* kind = f->window.findChild<QComboBox*>(QStringLiteral("kindCombo"));
    QCOMPARE(kind->currentData().toInt(), static_cast<int>(core::AttentionKind::Cross));
}

void TestMainWindow::decoderOnlyModel() {
    auto c = smallConfig(core::Architecture::DecoderOnly, core::PositionalEncoding::Learned);
    c.srcVocabSize = c.tgtVocabSize = 99;
    const auto dir = tmp_.filePath(QStringLiteral("lm"));
    randomModel(c, 3)->save(dir.toStdString());
    auto f = open(dir, QStringLiteral("once upon"));
    QVERIFY(f);
    auto* kind = f->window.findChild<QComboBox*>(QStringLiteral("kindCombo"));
    QCOMPARE(kind->count(), 1);
    QCOMPARE(kind->currentData().toInt(), static_cast<int>(core::AttentionKind::Decoder));
    QCOMPARE(f->window.viewState()->kind(), core::AttentionKind::Decoder);
    const auto r = f->controller->current();
    QVERIFY(r->snapshot->srcTokens.empty());
    QCOMPARE(r->snapshot->decoder.queries, 10); // <bos> + 9 characters of the prompt
    auto* grid = f->window.findChild<ui::AttentionGrid*>(QStringLiteral("attentionGrid"));
    QCOMPARE(grid->layers(), 2);
    QCOMPARE(grid->heads(), 4);
    f->controller->step();
    QVERIFY(f->controller->waitUntilIdle());
    QCOMPARE(f->controller->current()->snapshot->decoder.queries, 11);
    // The View menu offers the kinds the model has: Ctrl+2 here; Ctrl+1, Ctrl+3 and Ctrl+4 are off.
    for (auto* a : f->window.findChildren<QAction*>()) {
        const auto key = a->shortcut();
        for (int i = 0; i < 4; ++i)
            if (key == QKeySequence(Qt::CTRL | (Qt::Key_1 + i)))
                QVERIFY2(a->isEnabled() == (i == 1), qPrintable(a->text()));
    }
}

void TestMainWindow::modelWithoutPositions() {
    // Without positions the positional page has nothing to show: its tab goes, and Alt+2 does nothing.
    auto f = open(kDemoModel, QString());
    QVERIFY(f);
    f->window.activateWindow(); // shortcuts go to the active window
    QVERIFY(QTest::qWaitForWindowActive(&f->window));
    auto* tabs = f->window.findChild<QTabWidget*>(QStringLiteral("pages"));
    const int positional = static_cast<int>(ui::MainWindow::Page::Positional);
    QTest::keyClick(&f->window, Qt::Key_2, Qt::AltModifier);
    QCOMPARE(tabs->currentIndex(), positional);
    auto c = smallConfig(core::Architecture::EncoderDecoder, core::PositionalEncoding::None);
    const auto dir = tmp_.filePath(QStringLiteral("no-positions"));
    randomModel(c, 5)->save(dir.toStdString());
    QVERIFY(f->window.opener()->open(dir));
    QVERIFY(!tabs->isTabVisible(positional));
    QVERIFY(tabs->currentIndex() != positional); // the page shown goes with its tab
    f->window.showPage(ui::MainWindow::Page::Attention);
    QTest::keyClick(&f->window, Qt::Key_2, Qt::AltModifier);
    QCOMPARE(tabs->currentIndex(), static_cast<int>(ui::MainWindow::Page::Attention));
    f->window.showPage(ui::MainWindow::Page::Positional);
    QCOMPARE(tabs->currentIndex(), static_cast<int>(ui::MainWindow::Page::Attention));
    // Rotary positions keep the page: it explains them.
    auto rope = smallConfig(core::Architecture::DecoderOnly, core::PositionalEncoding::Rope);
    const auto ropeDir = tmp_.filePath(QStringLiteral("rope"));
    randomModel(rope, 5)->save(ropeDir.toStdString());
    QVERIFY(f->window.opener()->open(ropeDir));
    QVERIFY(tabs->isTabVisible(positional));
    QTest::keyClick(&f->window, Qt::Key_2, Qt::AltModifier);
    QCOMPARE(tabs->currentIndex(), positional);
}

void TestMainWindow::settingsRemembered() {
    {
        auto f = open(kDemoModel, QString());
        QVERIFY(f);
        f->window.findChild<QComboBox*>(QStringLiteral("colorMapCombo"))
            ->setCurrentText(QStringLiteral("magma"));
        f->window.findChild<QCheckBox*>(QStringLiteral("perHeadCheck"))->setChecked(true);
        f->window.resize(1111, 777);
        QTest::keyClicks(f->edit, QStringLiteral("hello"));
        f->window.close();
    }
    ui::MainWindow w(QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models"));
    w.restoreLayout();
    QVERIFY(w.opener()->open(kDemoModel));
    const auto restored = [&w] {
        QElapsedTimer waited;
        waited.start();
        while (w.driver()->driving() && waited.elapsed() < 30000)
            QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 20);
        return w.driver()->arrived();
    };
    w.restoreRemembered(QStringLiteral("first start"));
    QVERIFY(restored());
    QCOMPARE(w.findChild<QLineEdit*>(QStringLiteral("sourceEdit"))->text(), QStringLiteral("hello"));
    QCOMPARE(w.controller()->current()->sourceText, QStringLiteral("hello")); // and it is analysed
    QSettings().remove(QStringLiteral("source/text"));
    // No text of a last run: the model's own example (config.json's "example") comes before the fallback.
    w.restoreRemembered(QStringLiteral("first start"));
    QVERIFY(restored());
    QCOMPARE(w.findChild<QLineEdit*>(QStringLiteral("sourceEdit"))->text(),
             QStringLiteral("The dog sleeps."));
    // A text given (the command line's --src) comes before both.
    w.restoreRemembered(QStringLiteral("first start"), QStringLiteral("a cat"));
    QVERIFY(restored());
    QCOMPARE(w.findChild<QLineEdit*>(QStringLiteral("sourceEdit"))->text(), QStringLiteral("a cat"));
    QCOMPARE(w.viewState()->colorMap().name(), QStringLiteral("magma"));
    QCOMPARE(w.viewState()->scaleMode(), ui::ScaleMode::PerHead);
    QCOMPARE(w.size(), QSize(1111, 777));
    QCOMPARE(QSettings().value(QStringLiteral("model/last")).toString(), QDir(kDemoModel).absolutePath());
    // Put the defaults back for the other tests.
    w.findChild<QComboBox*>(QStringLiteral("colorMapCombo"))->setCurrentText(QStringLiteral("viridis"));
    w.findChild<QCheckBox*>(QStringLiteral("perHeadCheck"))->setChecked(false);
    // One scale at a time: the log scale's box unticks the per-head one, and the choice is remembered.
    auto* perHead = w.findChild<QCheckBox*>(QStringLiteral("perHeadCheck"));
    auto* log = w.findChild<QCheckBox*>(QStringLiteral("logScaleCheck"));
    perHead->setChecked(true);
    log->setChecked(true);
    QCOMPARE(w.viewState()->scaleMode(), ui::ScaleMode::Log);
    QVERIFY(!perHead->isChecked());
    {
        ui::MainWindow again(QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models"));
        QCOMPARE(ui::AppSettings::rememberedState().scale, ui::ScaleMode::Log);
        QString error;
        QVERIFY2(again.driver()->driveAndWait(ui::AppSettings::rememberedState(), {}, &error),
                 qPrintable(error));
        QCOMPARE(again.viewState()->scaleMode(), ui::ScaleMode::Log);
    }
    perHead->setChecked(true);
    QVERIFY(!log->isChecked());
    perHead->setChecked(false);
    QCOMPARE(w.viewState()->scaleMode(), ui::ScaleMode::Fixed);
}

void TestMainWindow::dropFolderOpensModel() {
    auto f = open(kDemoModel, QStringLiteral("ab"));
    QVERIFY(f);
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(wideModel_)});
    QDragEnterEvent enter(QPoint(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, {});
    QCoreApplication::sendEvent(&f->window, &enter);
    QVERIFY(enter.isAccepted());
    QSignalSpy loaded(f->window.opener(), &ui::ModelOpener::opened);
    QSignalSpy refused(f->window.opener(), &ui::ModelOpener::refused);
    QDropEvent drop(QPointF(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, {});
    QCoreApplication::sendEvent(&f->window, &drop);
    // The model loads on a background thread: the window keeps its old model until then.
    QVERIFY(loaded.wait(30000));
    QCOMPARE(refused.count(), 0);
    QCOMPARE(loaded.at(0).at(0).toString(), wideModel_);
    QCOMPARE(QString::fromStdString(f->window.model()->directory()), QDir(wideModel_).absolutePath());
    QVERIFY(f->controller->waitUntilIdle());
    QCOMPARE(f->controller->current()->snapshot->encoder.heads,
             5); // the text is re-analysed on the new model
    QCOMPARE(f->controller->current()->sourceText, QStringLiteral("ab"));
    // A file is not a model folder: the drag is refused.
    QMimeData fileMime;
    fileMime.setUrls({QUrl::fromLocalFile(kDemoModel + QStringLiteral("/config.json"))});
    QDragEnterEvent refuse(QPoint(50, 50), Qt::CopyAction, &fileMime, Qt::LeftButton, {});
    refuse.setAccepted(false);
    QCoreApplication::sendEvent(&f->window, &refuse);
    QVERIFY(!refuse.isAccepted());
}

void TestMainWindow::aboutNamesVersions() {
    const auto text = ui::HelpText::about();
    QVERIFY2(text.contains(QString::fromLatin1(qVersion())), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("LibTorch 1.")) || text.contains(QStringLiteral("LibTorch 2.")),
             qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("OpenBLAS kernels: ")) ||
                 text.contains(QStringLiteral("not OpenBLAS")),
             qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("packed weights: ") +
                           QString::fromStdString(core::PackedWeights::describe())),
             qPrintable(text));
    // Every shortcut the window has is in the help, and the keys the views take themselves too.
    auto f = open(kDemoModel, QString());
    QVERIFY(f);
    const auto help = ui::HelpText::shortcuts(f->window.menuBar());
    int shortcuts = 0;
    for (auto* a : f->window.findChildren<QAction*>())
        for (const auto& k : a->shortcuts()) {
            ++shortcuts;
            const auto key = ui::HelpText::keyText(k);
            QVERIFY2(help.contains(QStringLiteral("<b>") + key.toHtmlEscaped()) ||
                         help.contains(QStringLiteral(", ") + key.toHtmlEscaped()),
                     qPrintable(key + QStringLiteral(" (") + a->text() + QStringLiteral(") not in ") + help));
        }
    QVERIFY2(shortcuts >= 18, qPrintable(QString::number(shortcuts)));
    QVERIFY(help.contains(QStringLiteral("PgUp")));
}

void TestMainWindow::everyControlHasToolTip() {
    auto f = open(kDemoModel, QStringLiteral("abc"));
    QVERIFY(f);
    QStringList missing;
    int checked = 0;
    for (auto* w : f->window.findChildren<QWidget*>()) {
        const bool control = qobject_cast<QAbstractButton*>(w) || qobject_cast<QComboBox*>(w) ||
                             qobject_cast<QAbstractSpinBox*>(w) || qobject_cast<QLineEdit*>(w);
        // Qt's own parts of composite widgets (a spin box's line edit, the tab bar's scroll arrows,
        // a line edit's clear button) carry the tooltip of the widget they belong to.
        const bool internal = w->objectName().startsWith(QLatin1String("qt_")) ||
                              qobject_cast<QAbstractSpinBox*>(w->parentWidget()) ||
                              qobject_cast<QComboBox*>(w->parentWidget()) ||
                              qobject_cast<QTabBar*>(w->parentWidget()) ||
                              qobject_cast<QAbstractItemView*>(w->parentWidget()) ||
                              qobject_cast<QLineEdit*>(w->parentWidget());
        if (!control || internal)
            continue;
        ++checked;
        if (w->toolTip().isEmpty())
            missing << QStringLiteral("%1 '%2'").arg(QString::fromLatin1(w->metaObject()->className()),
                                                     w->objectName());
    }
    qInfo("%d controls checked", checked);
    QVERIFY(checked >= 15);
    QVERIFY2(missing.isEmpty(), qPrintable(missing.join(QStringLiteral(", "))));
}

QTEST_MAIN(TestMainWindow)
#include "test_mainwindow.moc"
