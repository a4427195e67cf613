#include "ui/base/AppSettings.h"

#include "ui/base/ColorMap.h"
#include "ui/base/ViewState.h"

#include <QDir>
#include <QMainWindow>
#include <QSettings>
#include <QTemporaryDir>
#include <QVariantList>

#include <algorithm>
#include <iterator>

namespace ui {

namespace {

// The keys of files written by earlier versions: renaming one forgets what users chose.
const QString kColorMap = QStringLiteral("view/colorMap");
const QString kPerHeadScale = QStringLiteral("view/perHeadScale");
const QString kLogScale = QStringLiteral("view/logScale");
const QString kValueWeighted = QStringLiteral("view/valueWeighted");
const QString kLastModel = QStringLiteral("model/last");
const QString kSourceText = QStringLiteral("source/text");
const QString kGeometry = QStringLiteral("window/geometry");
const QString kWindowState = QStringLiteral("window/state");
const QString kSplitter = QStringLiteral("window/splitter");
const QString kExportDir = QStringLiteral("export/dir");
const QString kLastRun = QStringLiteral("train/lastRun");
const QString kKind = QStringLiteral("view/kind");
const QString kLayer = QStringLiteral("view/layer");
const QString kHead = QStringLiteral("view/head");
const QString kSampling = QStringLiteral("decode/sampling"); // greedy, temperature, top-k, top-p, seed
const QString kRecent = QStringLiteral("model/recent");
const QString kFigure = QStringLiteral("figure/which");
const QString kFigureFont = QStringLiteral("figure/fontPt");
const QString kFigureTitled = QStringLiteral("figure/titled");
const QString kFigureDpi = QStringLiteral("figure/dpi");

} // namespace

bool AppSettings::keepNothing() {
    // Every QSettings object made afterwards looks in this folder; it is removed when the process ends.
    static QTemporaryDir scratch;
    if (!scratch.isValid())
        return false;
    for (auto format : {QSettings::NativeFormat, QSettings::IniFormat})
        QSettings::setPath(format, QSettings::UserScope, scratch.path());
    return true;
}

WindowState AppSettings::rememberedState() {
    QSettings s;
    WindowState w;
    w.colorMap = ColorMap::byName(s.value(kColorMap, ColorMap::names().front()).toString()).name();
    w.scale = s.value(kPerHeadScale, false).toBool() ? ScaleMode::PerHead
              : s.value(kLogScale, false).toBool()   ? ScaleMode::Log
                                                     : ScaleMode::Fixed;
    w.valueWeighted = s.value(kValueWeighted, false).toBool();
    const auto sel = selection();
    w.kind = sel.kind;
    w.layer = sel.layer;
    w.head = sel.head;
    w.sampling = sampling();
    return w;
}

void AppSettings::trackView(ViewState* state) {
    QObject::connect(state, &ViewState::scaleModeChanged, state, [](ScaleMode m) {
        QSettings s;
        s.setValue(kPerHeadScale, m == ScaleMode::PerHead);
        s.setValue(kLogScale, m == ScaleMode::Log);
    });
    QObject::connect(state, &ViewState::colorMapChanged, state,
                     [](const ColorMap& m) { QSettings().setValue(kColorMap, m.name()); });
    QObject::connect(state, &ViewState::valueWeightedChanged, state,
                     [](bool on) { QSettings().setValue(kValueWeighted, on); });
}

AppSettings::Selection AppSettings::selection() {
    QSettings s;
    Selection sel;
    const int kind = s.value(kKind, 0).toInt();
    // A value another version wrote, or an edited file, falls back to the default rather than misbehaving.
    if (kind >= 0 && kind < static_cast<int>(std::size(core::kAttentionKinds)))
        sel.kind = core::kAttentionKinds[kind];
    sel.layer = std::max(0, s.value(kLayer, 0).toInt());
    sel.head = std::max(core::kMeanHead, s.value(kHead, 0).toInt());
    return sel;
}

void AppSettings::trackSelection(ViewState* state) {
    QObject::connect(state, &ViewState::kindChanged, state,
                     [](core::AttentionKind k) { QSettings().setValue(kKind, static_cast<int>(k)); });
    QObject::connect(state, &ViewState::selectionChanged, state, [](int layer, int head) {
        QSettings s;
        s.setValue(kLayer, layer);
        s.setValue(kHead, head);
    });
}

core::SamplingSettings AppSettings::sampling() {
    const auto v = QSettings().value(kSampling).toList();
    core::SamplingSettings s;
    if (v.size() != 5)
        return s;
    s.greedy = v[0].toBool();
    const double t = v[1].toDouble(), p = v[3].toDouble();
    const int k = v[2].toInt();
    if (t > 0.0 && k >= 0 && p > 0.0 && p <= 1.0) {
        s.temperature = t;
        s.topK = k;
        s.topP = p;
        s.seed = v[4].toULongLong();
    } else {
        s.greedy = true;
    }
    return s;
}

void AppSettings::setSampling(const core::SamplingSettings& s) {
    QSettings().setValue(kSampling, QVariantList{s.greedy, s.temperature, s.topK, s.topP,
                                                 QVariant::fromValue<qulonglong>(s.seed)});
}

QStringList AppSettings::recentModels() {
    QStringList out;
    for (const auto& dir : QSettings().value(kRecent).toStringList())
        if (QDir(dir).exists() && !out.contains(dir))
            out << dir;
    return out.mid(0, kRecentModels);
}

void AppSettings::addRecentModel(const QString& dir) {
    auto list = QSettings().value(kRecent).toStringList();
    const auto path = QDir(dir).absolutePath();
    list.removeAll(path);
    list.prepend(path);
    QSettings().setValue(kRecent, list.mid(0, kRecentModels));
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

void AppSettings::restoreWindow(QMainWindow* window) {
    QSettings s;
    window->restoreGeometry(s.value(kGeometry).toByteArray());
    window->restoreState(s.value(kWindowState).toByteArray());
}

QByteArray AppSettings::paneLayout() {
    return QSettings().value(kSplitter).toByteArray();
}

void AppSettings::saveWindow(const QMainWindow* window, const QByteArray& paneLayout) {
    QSettings s;
    s.setValue(kGeometry, window->saveGeometry());
    s.setValue(kWindowState, window->saveState());
    s.setValue(kSplitter, paneLayout);
}

QString AppSettings::exportDir() {
    return QSettings().value(kExportDir, QDir::homePath()).toString();
}

void AppSettings::setExportDir(const QString& dir) {
    QSettings().setValue(kExportDir, dir);
}

AppSettings::FigureChoice AppSettings::figureChoice() {
    QSettings s;
    FigureChoice c;
    c.figure = s.value(kFigure, c.figure).toString();
    c.fontPt = s.value(kFigureFont, c.fontPt).toDouble();
    c.titled = s.value(kFigureTitled, c.titled).toBool();
    c.dpi = s.value(kFigureDpi, c.dpi).toInt();
    return c;
}

void AppSettings::setFigureChoice(const FigureChoice& c) {
    QSettings s;
    s.setValue(kFigure, c.figure);
    s.setValue(kFigureFont, c.fontPt);
    s.setValue(kFigureTitled, c.titled);
    s.setValue(kFigureDpi, c.dpi);
}

QString AppSettings::lastRun() {
    return QSettings().value(kLastRun).toString();
}

void AppSettings::setLastRun(const QString& dir) {
    QSettings().setValue(kLastRun, dir);
}

} // namespace ui
