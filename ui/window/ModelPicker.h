#pragma once
// The model chooser: every built-in model (a folder with a config.json under the models directory), the
// folders opened before, and an "Open Folder…" entry at the end.

#include <QComboBox>

namespace ui {

class ModelPicker : public QComboBox {
    Q_OBJECT
public:
    explicit ModelPicker(QWidget* parent = nullptr);

    /// Lists the model folders under dir (each subfolder holding a config.json).
    void setBuiltinDirectory(const QString& dir);
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
