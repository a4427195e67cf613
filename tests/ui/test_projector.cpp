// The window on a projector's screen: what a class sees at 1024 × 768. No model's shape pushes the window's
// minimum past 1024 × 700 (a 12-head model made it 1061 × 728), on any page, presenting too; the
// keyboard-shortcuts dialog (F1) fits the screen it opens on, its table scrolling and its OK button on
// screen.

#include "tests/support/SkipReport.h"
#include "tests/support/WindowFixture.h"

#include "ui/attention/CandidatesChart.h"
#include "ui/base/Pages.h"
#include "ui/inside/InsideStages.h"
#include "ui/inside/InsideView.h"
#include "ui/lesson/LessonPanel.h"
#include "ui/lesson/LessonPlayer.h"
#include "ui/window/ShortcutsDialog.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QStyle>
#include <QStyleOptionComboBox>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QTimer>
#include <QtTest>

class TestProjector : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { isolateSettings(); }
    void anyShapeFitsAProjector_data();
    void anyShapeFitsAProjector();
    void shortcutsFitTheScreen();
    void lessonStepsGetTheRoom();
    void trainBoxesShowTheirEntries();
};

void TestProjector::anyShapeFitsAProjector_data() {
    QTest::addColumn<int>("layers");
    QTest::addColumn<int>("heads");
    QTest::addColumn<bool>("encoder");
    QTest::newRow("GPT-2's 12 x 12") << 12 << 12 << false;
    QTest::newRow("BART's 6 x 16, encoder-decoder") << 6 << 16 << true;
    QTest::newRow("Llama's 32 x 32") << 32 << 32 << false;
    QTest::newRow("one head, one layer") << 1 << 1 << true;
}

void TestProjector::anyShapeFitsAProjector() {
    QFETCH(int, layers);
    QFETCH(int, heads);
    QFETCH(bool, encoder);
    auto c = smallConfig(encoder ? core::Architecture::EncoderDecoder : core::Architecture::DecoderOnly,
                         core::PositionalEncoding::Sinusoidal);
    c.encoderLayers = encoder ? layers : 0;
    c.decoderLayers = layers;
    c.heads = heads;
    c.dModel = 2 * heads;
    c.dFf = 4 * heads;
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("shape"));
    randomModel(c, 3)->save(path.toStdString());
    auto f = openWindow(path, QStringLiteral("the cat sat on the mat"));
    QVERIFY(f);
    f->window.resize(1024, 700);
    const auto fits = [&](const char* how) {
        QCoreApplication::processEvents();
        const QSize min = f->window.minimumSizeHint().expandedTo(f->window.minimumSize());
        qInfo("%d layers x %d heads, %s: minimum %dx%d", layers, heads, how, min.width(), min.height());
        return min.width() <= 1024 && min.height() <= 700;
    };
    for (const auto page : {ui::Page::Attention, ui::Page::Inside, ui::Page::Positional, ui::Page::Heads}) {
        f->window.showPage(page);
        QVERIFY2(fits(qPrintable(ui::pageName(page))), qPrintable(ui::pageName(page)));
    }
    f->window.showPage(ui::Page::Attention);
    const QByteArray shots = qgetenv("ATTNSCOPE_TEST_SHOTS");
    if (!shots.isEmpty()) {
        f->window.resize(1024, 700);
        QCoreApplication::processEvents();
        QVERIFY(f->window.grab().save(QString::fromLocal8Bit(shots) +
                                      QStringLiteral("/projector-%1x%2.png").arg(layers).arg(heads)));
    }
    // Presenting: larger fonts, the same room.
    f->window.findChild<QAction*>(QStringLiteral("presentationAction"))->setChecked(true);
    QVERIFY(fits("presenting"));
    f->window.findChild<QAction*>(QStringLiteral("presentationAction"))->setChecked(false);
}

void TestProjector::shortcutsFitTheScreen() {
    auto f = openWindow(kDemoModel, QString());
    QVERIFY(f);
    f->window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&f->window));
    f->edit->setFocus();
    QRect frame, ok, screen;
    int scrollRange = -1;
    bool seen = false;
    // F1 opens the dialog modally: it is looked at, pictured and closed with its OK button from inside.
    QTimer poll;
    connect(&poll, &QTimer::timeout, this, [&] {
        auto* dialog = qobject_cast<ui::ShortcutsDialog*>(QApplication::activeModalWidget());
        if (!dialog || !dialog->isVisible())
            return;
        poll.stop();
        seen = true;
        QTest::qWait(50);
        frame = dialog->frameGeometry();
        screen = dialog->screen()->availableGeometry();
        auto* button = dialog->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
        ok = QRect(button->mapToGlobal(QPoint(0, 0)), button->size());
        scrollRange = dialog->browser()->verticalScrollBar()->maximum();
        const QByteArray shots = qgetenv("ATTNSCOPE_TEST_SHOTS");
        if (!shots.isEmpty())
            dialog->grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/shortcuts-dialog.png"));
        QTest::mouseClick(button, Qt::LeftButton);
    });
    poll.start(20);
    QTest::keyClick(f->edit, Qt::Key_F1);
    QVERIFY(QTest::qWaitFor([&] { return seen && !QApplication::activeModalWidget(); }, 10000));
    qInfo("F1 on a %dx%d screen: the dialog %dx%d at %d,%d, OK at %d,%d, the table scrolls %d px",
          screen.width(), screen.height(), frame.width(), frame.height(), frame.x(), frame.y(), ok.x(),
          ok.y(), scrollRange);
    QVERIFY2(frame.height() <= screen.height(), "the dialog is taller than the screen");
    QVERIFY2(screen.contains(ok), "the OK button is off the screen");
    // The table is longer than the room: it scrolls rather than being cut off.
    QVERIFY(scrollRange > 0);
}

void TestProjector::lessonStepsGetTheRoom() {
    // Lesson 1 on a projector, presenting, the lesson dock open: its step 8 is about the softmax column of
    // the Inside page's stage 4, which must be in sight, not behind a sideways scrollbar; its step 1 rings
    // a cell of the detail heatmap, which gets the room to show its keys.
    auto f = openWindow(QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/en-es"), QString());
    QVERIFY(f);
    f->window.findChild<QAction*>(QStringLiteral("presentationAction"))->setChecked(true);
    f->window.showNormal();
    f->window.resize(1024, 700);
    auto* panel = f->window.lessonPanel();
    QString error;
    QVERIFY2(
        panel->openFile(QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/lessons/01-one-weight.json"), &error),
        qPrintable(error));
    auto* player = panel->player();
    const QByteArray shots = qgetenv("ATTNSCOPE_TEST_SHOTS");
    const auto reach = [&](int index) {
        player->go(index);
        return QTest::qWaitFor([&] { return player->arrived(); }, 60000);
    };
    QVERIFY(reach(7));
    QCoreApplication::processEvents();
    auto* stages = f->window.findChild<ui::InsideStages*>();
    auto* scroll = f->window.insideView()->findChild<QScrollArea*>();
    QVERIFY(stages && scroll);
    auto* four = f->window.insideView()->findChild<QWidget*>(QStringLiteral("insideLine4"))->parentWidget();
    const QRect box(four->mapTo(scroll->viewport(), QPoint(0, 0)), four->size());
    qInfo("step 8: the Inside page %d px wide, stages in %s (two need %d px), stage 4 at x %d..%d of %d, "
          "sideways scroll %d px",
          scroll->viewport()->width(), stages->twoColumns() ? "two columns" : "one column",
          stages->twoColumnWidth(), box.left(), box.right(), scroll->viewport()->width(),
          scroll->horizontalScrollBar()->maximum());
    QVERIFY(!stages->twoColumns());
    QCOMPARE(scroll->horizontalScrollBar()->maximum(), 0);
    // The step rings a heatmap cell too, on a page out of sight: the Attention page's panes are left whole.
    const auto hidden = f->window.findChild<QSplitter*>(QStringLiteral("mainSplitter"))->sizes();
    qInfo("the Attention page's panes meanwhile: %d | %d | %d px", hidden[0], hidden[1], hidden[2]);
    QVERIFY(hidden[0] > 0 && hidden[1] > 0 && hidden[2] > 0);
    QVERIFY(box.left() >= 0 && box.right() < scroll->viewport()->width());
    // Scrolled down to it: its top at the top, so as much of it as fits is in sight.
    QVERIFY2(box.top() >= 0 && box.top() < 20, qPrintable(QString::number(box.top())));
    if (!shots.isEmpty())
        QVERIFY(f->window.grab().save(QString::fromLocal8Bit(shots) +
                                      QStringLiteral("/projector-inside-step8.png")));
    // Wide enough, the stages stand in two columns again.
    f->window.findChild<QAction*>(QStringLiteral("presentationAction"))->setChecked(false);
    panel->hide();
    f->window.resize(1600, 900);
    QTRY_VERIFY(stages->twoColumns());
    f->window.findChild<QAction*>(QStringLiteral("presentationAction"))->setChecked(true);
    f->window.showNormal();
    f->window.resize(1024, 700);
    panel->show();
    QVERIFY(reach(0));
    QCoreApplication::processEvents();
    auto* splitter = f->window.findChild<QSplitter*>(QStringLiteral("mainSplitter"));
    const auto sizes = splitter->sizes();
    qInfo("step 1: panes %d | %d | %d px", sizes[0], sizes[1], sizes[2]);
    // Half the width, or all the grid and the chart can give: both at their least.
    const int total = sizes[0] + sizes[1] + sizes[2];
    const int gridLeast =
        f->window.findChild<QWidget*>(QStringLiteral("attentionGrid"))->minimumSizeHint().width();
    const int chartLeast = f->window.findChild<ui::CandidatesChart*>()->minimumWidth();
    qInfo("half is %d px; the grid's least %d, the chart's %d", total / 2, gridLeast, chartLeast);
    QVERIFY(sizes[1] * 2 >= total - 4 || (sizes[0] <= gridLeast + 4 && sizes[2] <= chartLeast + 4));
    QVERIFY(f->window.findChild<ui::CandidatesChart*>()->width() >= 150);
    if (!shots.isEmpty())
        QVERIFY(
            f->window.grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/projector-step1.png")));
}

void TestProjector::trainBoxesShowTheirEntries() {
    // At 1024 px the Train page's row has room to spare: the size box shows "classroom (2+2 layers,
    // d_model 64)" whole rather than cut at 14 characters, and at the window's minimum it still fits.
    auto f = openWindow(kDemoModel, QString());
    QVERIFY(f);
    f->window.resize(1024, 768);
    f->window.showPage(ui::Page::Train);
    QCoreApplication::processEvents();
    for (const char* name : {"trainSize", "trainTask"}) {
        auto* box = f->window.findChild<QComboBox*>(QLatin1String(name));
        QVERIFY(box);
        QStyleOptionComboBox option;
        option.initFrom(box);
        const int room = box->style()
                             ->subControlRect(QStyle::CC_ComboBox, &option, QStyle::SC_ComboBoxEditField, box)
                             .width();
        const int text = box->fontMetrics().horizontalAdvance(box->currentText());
        qInfo("%s at 1024 px: %d px wide, \"%s\" needs %d of its %d", name, box->width(),
              qPrintable(box->currentText()), text, room);
        QVERIFY2(text <= room, name);
    }
    const QByteArray shots = qgetenv("ATTNSCOPE_TEST_SHOTS");
    if (!shots.isEmpty())
        QVERIFY(f->window.grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/train-1024.png")));
    const QSize min = f->window.minimumSizeHint().expandedTo(f->window.minimumSize());
    QVERIFY2(min.width() <= 1024, qPrintable(QString::number(min.width())));
}

ATTNSCOPE_WIDGETS_MAIN(TestProjector)

#include "test_projector.moc"
