#pragma once
// A real main window for widget tests: opened offscreen on a model, text typed as a user types it, and
// the settings kept away from the user's own.

#include "tests/support/TestModels.h"

#include "ui/MainWindow.h"
#include "ui/inside/InsideView.h"
#include "ui/run/AnalysisController.h"
#include "ui/run/InsideResult.h"
#include "ui/run/ModelOpener.h"

#include <QCoreApplication>
#include <QLineEdit>
#include <QStandardPaths>
#include <QtTest>

#include <memory>

inline const QString kDemoModel = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/demo-random");

struct WindowFixture {
    ui::MainWindow window{QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models")};
    QLineEdit* edit = nullptr;
    ui::AnalysisController* controller = nullptr;
};

/// Call first in initTestCase: tests must neither read nor change the user's settings.
inline void isolateSettings() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("attnscope-tests"));
}

/// A shown window on the model in dir, with text typed and analysed; null when anything failed.
inline std::unique_ptr<WindowFixture> openWindow(const QString& dir, const QString& text) {
    auto f = std::make_unique<WindowFixture>();
    f->window.resize(1400, 900);
    f->window.show();
    if (!f->window.opener()->open(dir))
        return nullptr;
    f->edit = f->window.findChild<QLineEdit*>(QStringLiteral("sourceEdit"));
    f->controller = f->window.controller();
    if (!text.isEmpty()) {
        QTest::keyClicks(f->edit, text);
        if (!f->controller->waitUntilIdle())
            return nullptr;
    }
    return f;
}

/// Alt+5 pressed in the Source field, as a user reaches the Inside tab after typing; the tab once it shows a
/// row, or null when it did not within 30 s.
inline ui::InsideView* showInsideFromSource(WindowFixture& f) {
    f.edit->setFocus();
    QTest::keyClick(f.edit, Qt::Key_5, Qt::AltModifier);
    auto* inside = f.window.findChild<ui::InsideView*>();
    if (!inside || !QTest::qWaitFor([inside] { return inside->isVisible() && inside->shownInside(); }, 30000))
        return nullptr;
    return inside;
}

/// A model of 3 layers × 5 heads saved under dir, so tests can tell shapes read from the model from
/// shapes assumed.
inline QString saveWideModel(const QString& dir) {
    auto c = smallConfig(core::Architecture::EncoderDecoder, core::PositionalEncoding::Sinusoidal);
    c.encoderLayers = 3;
    c.decoderLayers = 3;
    c.heads = 5;
    c.dModel = 40;
    c.srcVocabSize = c.tgtVocabSize = 99;
    const QString path = dir + QStringLiteral("/wide");
    randomModel(c, 7)->save(path.toStdString());
    return path;
}
