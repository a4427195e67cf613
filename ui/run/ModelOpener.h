#pragma once
// Which model the window has open, and how another one gets opened: now or in the background, a folder
// that does not load leaving the open model in place, the folder remembered for the next start, and the
// order in which a start picks its model (the one asked for, else the one used last, else the default).

#include <QObject>
#include <QString>

#include <memory>

namespace core {
class Model;
}

namespace ui {

class ModelLoader;

class ModelOpener : public QObject {
    Q_OBJECT
public:
    /// builtinDir: where the built-in models live (each a subfolder).
    explicit ModelOpener(const QString& builtinDir, QObject* parent = nullptr);
    ~ModelOpener() override;

    /// Where a start looks for its model.
    struct Startup {
        QString requested;      ///< the folder asked for (--model): opened or refused, never replaced
        QString fallback;       ///< the default model, when nothing was asked for or remembered
        bool remembered = true; ///< try the model used last before the default (a screenshot does not)
    };
    /// Opens the model a start begins with; false when none could be opened. When the remembered model
    /// no longer loads, the default is opened instead and note (if given) says why.
    bool openAtStartup(const Startup& startup, QString* note = nullptr);

    /// Loads dir now, on the calling thread; emits opened() or refused() before returning.
    bool open(const QString& dir);
    /// Loads dir on a background thread, so a large model does not freeze the window; a newer request
    /// replaces this one.
    void openInBackground(const QString& dir);

    std::shared_ptr<const core::Model> model() const { return model_; }
    /// The open model's folder; empty when none is open.
    QString directory() const;
    /// Whether dir is a built-in model (a folder right under the built-in directory).
    bool isBuiltin(const QString& dir) const;
    /// Whether the open model is the one in dir, however the two paths are spelled.
    bool isOpen(const QString& dir) const;
    /// Where an "open folder" dialog starts: the folder that holds the open model's, else the built-in
    /// models.
    QString dialogFolder() const;
    bool loading() const;

Q_SIGNALS:
    void opened(const QString& dir, std::shared_ptr<const core::Model> model);
    /// The model in dir did not load; the open model stays. background: the request came from
    /// openInBackground, so nobody is waiting on a return value to learn of it.
    void refused(const QString& dir, const QString& error, bool background);
    void loadingChanged(bool loading);

private:
    /// open(), telling why in why (when given) on failure.
    bool openNow(const QString& dir, QString* why);
    void apply(const QString& dir, std::shared_ptr<const core::Model> model);

    QString builtinDir_;
    ModelLoader* loader_ = nullptr;
    std::shared_ptr<const core::Model> model_;
};

} // namespace ui
