#pragma once
// The model chooser: every built-in model (a folder with a config.json under the models directory), the
// folders opened before (File ▸ Open Recent's), the models trained in the Train tab, and an "Open Folder…"
// entry at the end.

#include <QComboBox>

#include <functional>

namespace ui {

class ModelPicker : public QComboBox {
    Q_OBJECT
public:
    explicit ModelPicker(QWidget* parent = nullptr);

    /// Lists the model folders under dir (each subfolder holding a config.json).
    void setBuiltinDirectory(const QString& dir);
    /// Adds each folder holding a config.json that is not listed yet, after those listed (before "Open
    /// Folder…"), named by `name` (the folder's name when empty) with the path as its tooltip.
    void addFolders(const QStringList& dirs, const std::function<QString(const QString& dir)>& name = {});
    /// Shows dir as the current model, adding it to the list when it is not there yet.
    void setCurrentModel(const QString& dir);
    QString currentModel() const;
    /// The folders listed, built-in first.
    QStringList modelDirectories() const;

Q_SIGNALS:
    void modelChosen(const QString& dir);
    void openFolderRequested();

private:
    void onActivated(int index);
    int openIndex() const { return count() - 1; }

    QString shown_;
};

} // namespace ui
