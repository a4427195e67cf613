#include "ui/AppSettings.h"

#include "ui/ColorMap.h"
#include "ui/ViewState.h"

#include <QDir>
#include <QMainWindow>
#include <QSettings>
#include <QSplitter>

namespace ui {

namespace {

// The keys of files written by earlier versions: renaming one forgets what users chose.
const QString kColorMap = QStringLiteral("view/colorMap");
const QString kPerHeadScale = QStringLiteral("view/perHeadScale");
const QString kLogScale = QStringLiteral("view/logScale");
const QString kLastModel = QStringLiteral("model/last");
const QString kSourceText = QStringLiteral("source/text");
const QString kGeometry = QStringLiteral("window/geometry");
const QString kWindowState = QStringLiteral("window/state");
const QString kSplitter = QStringLiteral("window/splitter");
const QString kExportDir = QStringLiteral("export/dir");
const QString kLastRun = QStringLiteral("train/lastRun");

} // namespace

void AppSettings::restoreView(ViewState* state) {
    QSettings s;
    state->setColorMap(s.value(kColorMap, ColorMap::names().front()).toString());
    state->setScaleMode(s.value(kPerHeadScale, false).toBool() ? ScaleMode::PerHead
                        : s.value(kLogScale, false).toBool()   ? ScaleMode::Log
                                                               : ScaleMode::Fixed);
}

void AppSettings::trackView(ViewState* state) {
    QObject::connect(state, &ViewState::scaleModeChanged, state, [](ScaleMode m) {
        QSettings s;
        s.setValue(kPerHeadScale, m == ScaleMode::PerHead);
        s.setValue(kLogScale, m == ScaleMode::Log);
    });
    QObject::connect(state, &ViewState::colorMapChanged, state,
                     [](const ColorMap& m) { QSettings().setValue(kColorMap, m.name()); });
}

QString AppSettings::lastModel() {
    return QSettings().value(kLastModel).toString();
}

void AppSettings::setLastModel(const QString& dir) {
    QSettings().setValue(kLastModel, QDir(dir).absolutePath());
}

QString AppSettings::sourceText(const QString& fallback) {
    return QSettings().value(kSourceText, fallback).toString();
}

void AppSettings::setSourceText(const QString& text) {
    QSettings().setValue(kSourceText, text);
}

void AppSettings::restoreWindow(QMainWindow* window, QSplitter* splitter) {
    QSettings s;
    window->restoreGeometry(s.value(kGeometry).toByteArray());
    window->restoreState(s.value(kWindowState).toByteArray());
    splitter->restoreState(s.value(kSplitter).toByteArray());
}

void AppSettings::saveWindow(const QMainWindow* window, const QSplitter* splitter) {
    QSettings s;
    s.setValue(kGeometry, window->saveGeometry());
    s.setValue(kWindowState, window->saveState());
    s.setValue(kSplitter, splitter->saveState());
}

QString AppSettings::exportDir() {
    return QSettings().value(kExportDir, QDir::homePath()).toString();
}

void AppSettings::setExportDir(const QString& dir) {
    QSettings().setValue(kExportDir, dir);
}

QString AppSettings::lastRun() {
    return QSettings().value(kLastRun).toString();
}

void AppSettings::setLastRun(const QString& dir) {
    QSettings().setValue(kLastRun, dir);
}

} // namespace ui
