#pragma once
// The main window: builds the top bar, the pages, the menus and the status bar, and wires them to the view
// state and the analysis controller. It holds no logic of its own beyond that wiring.

#include "ui/base/Pages.h"
#include "ui/run/RunResult.h"

#include <QMainWindow>

#include <memory>

class QAction;
class QLineEdit;
class QTabWidget;

namespace core {
class Model;
}

namespace ui {

class AnalysisController;
class AttentionPage;
class ExportActions;
class HeadTable;
class InsideView;
class LessonPanel;
class AlignmentPage;
class ModelOpener;
class ModelPicker;
class PositionalView;
class ResearchPages;
class TrainPage;
class ViewState;
class WindowDriver;
class WindowMessages;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    using Page = ui::Page;

    /// modelsDir: where the built-in models live (listed in the model picker).
    explicit MainWindow(const QString& modelsDir = QString(), QWidget* parent = nullptr);
    ~MainWindow() override;

    /// The last error shown (a bad model folder, a text the model cannot take); empty after success.
    QString lastError() const;
    void setSourceText(const QString& text);
    QString sourceText() const;
    /// Shows page, unless it is hidden because the model lacks what it shows (positions, say).
    void showPage(Page page);
    Page currentPage() const;
    /// Restores the window's geometry and the panes' widths remembered from the last run (before show()).
    void restoreLayout();
    /// Brings the window, through its driver as a lesson's step does, to what it showed when it last closed
    /// (AppSettings::rememberedState) on the model open now, with `text` in the source field; without one,
    /// the text of the last run, or on a first start the model's example (config.json's "example"), else
    /// `fallback`, so the window opens on something to look at. Call after a model is open.
    void restoreRemembered(const QString& fallback, const QString& text = QString());
    AnalysisController* controller() const { return controller_; }
    ViewState* viewState() const { return state_; }
    /// The Rollout, Ablation and Compare pages.
    ResearchPages* research() const { return research_; }
    /// Opens models into this window (now, in the background, at startup).
    ModelOpener* opener() const { return opener_; }
    std::shared_ptr<const core::Model> model() const;
    /// Where the built-in models live (empty when they were not found).
    QString modelsDirectory() const { return modelsDir_; }
    AttentionPage* attentionPage() const { return attention_; }
    InsideView* insideView() const { return inside_; }
    HeadTable* headTable() const { return heads_; }
    LessonPanel* lessonPanel() const { return lessons_; }
    /// Brings the window to a WindowState (lessons, --screenshot and tests drive it through this).
    WindowDriver* driver() const { return driver_; }
    TrainPage* trainPage() const { return train_; }

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void buildWidgets();
    void buildMenus();
    void wire();
    void applyModel(const QString& dir, const std::shared_ptr<const core::Model>& model);
    void refuseModel(const QString& error, bool background);
    void openInBackground(const QString& dir);
    void openFolderDialog();

    QString modelsDir_;
    ViewState* state_ = nullptr;
    AnalysisController* controller_ = nullptr;
    ModelOpener* opener_ = nullptr;
    ExportActions* exports_ = nullptr;
    WindowDriver* driver_ = nullptr;
    LessonPanel* lessons_ = nullptr;

    ModelPicker* picker_ = nullptr;
    QLineEdit* source_ = nullptr;
    WindowMessages* messages_ = nullptr;
    QTabWidget* tabs_ = nullptr;
    QAction* positionalAction_ = nullptr;
    AttentionPage* attention_ = nullptr;
    PositionalView* positional_ = nullptr;
    TrainPage* train_ = nullptr;
    HeadTable* heads_ = nullptr;
    InsideView* inside_ = nullptr;
    AlignmentPage* align_ = nullptr;
    ResearchPages* research_ = nullptr;
};

} // namespace ui
