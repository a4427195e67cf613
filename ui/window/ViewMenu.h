#pragma once
// The View menu: the attention kind (Ctrl+1…4), the colour scales, the pages (Alt+1…5), Edit Source and the
// presentation mode (F11). Kept out of MainWindow so the window only wires.

#include <QMenu>

#include <functional>

class QLineEdit;
class QMainWindow;
class QTabWidget;

namespace ui {

class AttentionPage;
class PresentationMode;
class ViewState;

class ViewMenu : public QMenu {
    Q_OBJECT
public:
    /// `showPage` shows a page by its index (MainWindow::Page's order); the presentation mode acts on
    /// `window`.
    ViewMenu(AttentionPage* attention, ViewState* state, QLineEdit* source, QTabWidget* tabs,
             std::function<void(int)> showPage, QMainWindow* window);

    /// Disabled for a model without a positional table.
    QAction* positionalAction() const { return positional_; }
    PresentationMode* presentation() const { return presentation_; }

private:
    QAction* positional_ = nullptr;
    PresentationMode* presentation_ = nullptr;
};

} // namespace ui
