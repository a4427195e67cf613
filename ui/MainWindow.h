#pragma once
// The main window. For now: a source field, the tokens, the greedy decoding and the next-token candidates.

#include <QMainWindow>

#include <memory>

class QLineEdit;
class QPlainTextEdit;
class QLabel;

namespace core {
class Model;
}

namespace ui {

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Loads a model directory; on failure keeps the current model and shows why in the status bar.
    bool openModel(const QString& dir);
    /// Runs the analysis of the current source text and shows it.
    void refresh();

private:
    std::shared_ptr<const core::Model> model_;
    QLineEdit* source_ = nullptr;
    QPlainTextEdit* output_ = nullptr;
};

} // namespace ui
