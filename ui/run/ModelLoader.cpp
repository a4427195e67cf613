#include "ui/run/ModelLoader.h"

#include "core/model/Model.h"
#include "ui/base/LatestJob.h"

#include <QDir>

namespace ui {

namespace {

std::shared_ptr<const core::Model> loadModel(const QString& dir) {
    return core::Model::load(QDir(dir).absolutePath().toStdString());
}

} // namespace

ModelLoader::ModelLoader(QObject* parent) : QObject(parent), job_(new LatestJob(this)) {
    connect(job_, &LatestJob::busyChanged, this, &ModelLoader::loadingChanged);
}

ModelLoader::~ModelLoader() = default;

void ModelLoader::load(const QString& dir) {
    job_->start([dir] { return loadModel(dir); },
                [this, dir](std::shared_ptr<const core::Model> model, const QString& error) {
                    if (model)
                        Q_EMIT loaded(dir, std::move(model));
                    else
                        Q_EMIT failed(dir, error);
                });
}

std::shared_ptr<const core::Model> ModelLoader::loadNow(const QString& dir, QString* error) {
    job_->forget();
    std::shared_ptr<const core::Model> model;
    const QString why = LatestJob::errorOf([&] { model = loadModel(dir); });
    if (error)
        *error = why;
    return model;
}

bool ModelLoader::loading() const {
    return job_->busy();
}

} // namespace ui
