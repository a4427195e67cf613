#include "ui/run/ModelOpener.h"

#include "core/model/Model.h"
#include "ui/base/AppSettings.h"
#include "ui/run/ModelLoader.h"

#include <QApplication>
#include <QDir>
#include <QFileInfo>

namespace ui {

namespace {

// Canonical paths, so a symbolic link, "..", or a trailing slash does not make one folder two.
bool sameFolder(const QString& a, const QString& b) {
    const QString ca = QFileInfo(a).canonicalFilePath();
    return !ca.isEmpty() && ca == QFileInfo(b).canonicalFilePath();
}

} // namespace

ModelOpener::ModelOpener(const QString& builtinDir, QObject* parent)
    : QObject(parent), builtinDir_(builtinDir), loader_(new ModelLoader(this)) {
    connect(loader_, &ModelLoader::loadingChanged, this, &ModelOpener::loadingChanged);
    connect(loader_, &ModelLoader::loaded, this, &ModelOpener::apply);
    connect(loader_, &ModelLoader::failed, this,
            [this](const QString& dir, const QString& error) { Q_EMIT refused(dir, error, true); });
}

ModelOpener::~ModelOpener() = default;

bool ModelOpener::openAtStartup(const Startup& startup, QString* note) {
    if (!startup.requested.isEmpty())
        return open(startup.requested); // what was asked for, or its error: never another model instead
    QString why;
    if (startup.remembered) {
        const QString last = AppSettings::lastModel();
        if (!last.isEmpty() && QFileInfo(last).isDir()) {
            // A remembered model that no longer loads should not leave the window empty: say why and open
            // the default instead.
            if (openNow(last, &why))
                return true;
        }
    }
    // No built-in model to fall back on (the program could not find its data): the window opens empty and
    // the command line has said why.
    const bool ok = !startup.fallback.isEmpty() && open(startup.fallback);
    if (ok && note && !why.isEmpty())
        *note = tr("%1; opened the built-in model instead").arg(why);
    return ok;
}

bool ModelOpener::open(const QString& dir) {
    return openNow(dir, nullptr);
}

bool ModelOpener::openNow(const QString& dir, QString* why) {
    QString error;
    QApplication::setOverrideCursor(Qt::WaitCursor);
    auto model = loader_->loadNow(dir, &error);
    QApplication::restoreOverrideCursor();
    if (!model) {
        if (why)
            *why = error;
        Q_EMIT refused(dir, error, false);
        return false;
    }
    apply(dir, std::move(model));
    return true;
}

void ModelOpener::openInBackground(const QString& dir) {
    loader_->load(dir);
}

void ModelOpener::apply(const QString& dir, std::shared_ptr<const core::Model> model) {
    model_ = std::move(model);
    AppSettings::setLastModel(dir);
    Q_EMIT opened(dir, model_);
}

QString ModelOpener::directory() const {
    return model_ ? QString::fromStdString(model_->directory()) : QString();
}

bool ModelOpener::isBuiltin(const QString& dir) const {
    const QString canonical = QFileInfo(dir).canonicalFilePath();
    return !canonical.isEmpty() && !builtinDir_.isEmpty() &&
           sameFolder(QFileInfo(canonical).path(), builtinDir_);
}

bool ModelOpener::isOpen(const QString& dir) const {
    return model_ && sameFolder(directory(), dir);
}

QString ModelOpener::dialogFolder() const {
    // Beside the open model, where the folders to choose from are: inside it there are only its files.
    return model_ ? QFileInfo(directory()).absolutePath() : builtinDir_;
}

bool ModelOpener::loading() const {
    return loader_->loading();
}

} // namespace ui
