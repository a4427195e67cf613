#include "ui/ModelLoader.h"

#include "core/base/Errors.h"
#include "core/model/Model.h"

#include <QCoreApplication>
#include <QDir>
#include <QPointer>
#include <QThreadPool>

namespace ui {

namespace {

std::shared_ptr<const core::Model> loadModel(const QString& dir, QString* error) {
    try {
        return core::Model::load(QDir(dir).absolutePath().toStdString());
    } catch (const std::exception& e) {
        *error = QString::fromStdString(e.what());
        return nullptr;
    }
}

} // namespace

ModelLoader::ModelLoader(QObject* parent) : QObject(parent) {}
ModelLoader::~ModelLoader() = default;

void ModelLoader::load(const QString& dir) {
    const quint64 serial = ++serial_;
    setLoading(true);
    QPointer<ModelLoader> self(this);
    // The global pool is waited for when the application ends, so qApp outlives the job; whether this
    // loader does is checked on the GUI thread, where QPointer may be read.
    QThreadPool::globalInstance()->start([self, dir, serial] {
        QString error;
        auto model = loadModel(dir, &error);
        QMetaObject::invokeMethod(
            qApp,
            [self, dir, serial, model, error] {
                if (ModelLoader* l = self.data())
                    l->finish(serial, dir, model, error);
            },
            Qt::QueuedConnection);
    });
}

std::shared_ptr<const core::Model> ModelLoader::loadNow(const QString& dir, QString* error) {
    ++serial_;
    setLoading(false);
    return loadModel(dir, error);
}

void ModelLoader::finish(quint64 serial, const QString& dir, std::shared_ptr<const core::Model> model,
                         const QString& error) {
    if (serial != serial_)
        return; // a newer request replaced this one
    setLoading(false);
    if (model)
        Q_EMIT loaded(dir, std::move(model));
    else
        Q_EMIT failed(dir, error);
}

void ModelLoader::setLoading(bool on) {
    if (on == loading_)
        return;
    loading_ = on;
    Q_EMIT loadingChanged(on);
}

} // namespace ui
