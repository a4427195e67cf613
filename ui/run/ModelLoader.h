#pragma once
// Loads model directories off the GUI thread, so opening a large model never freezes the window. Only the
// newest request counts: an older load that finishes later is dropped.

#include <QObject>
#include <QString>

#include <memory>

namespace core {
class Model;
}

namespace ui {

class LatestJob;

class ModelLoader : public QObject {
    Q_OBJECT
public:
    explicit ModelLoader(QObject* parent = nullptr);
    ~ModelLoader() override;

    /// Starts loading on the loader's own thread; loaded() or failed() follows on this object's thread.
    void load(const QString& dir);
    /// Loads now, on the calling thread; a background load still running is forgotten.
    std::shared_ptr<const core::Model> loadNow(const QString& dir, QString* error);
    bool loading() const;

Q_SIGNALS:
    void loaded(const QString& dir, std::shared_ptr<const core::Model> model);
    void failed(const QString& dir, const QString& error);
    void loadingChanged(bool loading);

private:
    LatestJob* job_ = nullptr;
};

} // namespace ui
