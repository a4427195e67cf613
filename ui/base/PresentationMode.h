#pragma once
// The window for a projector: full screen, larger fonts, the chrome (menu bar, status bar, tab bar, the
// colour controls) out of sight, the step controls and the source field kept. F11 or Escape leaves it
// as it was. The menu bar is collapsed, not hidden, so every menu shortcut still works.

#include <QFont>
#include <QList>
#include <QObject>

#include <vector>

class QMainWindow;
class QSplitter;
class QWidget;

namespace ui {

class PresentationMode : public QObject {
    Q_OBJECT
public:
    /// `chrome`: the widgets to put out of sight besides the menu and status bars.
    PresentationMode(QMainWindow* window, QList<QWidget*> chrome);

    /// Puts `widget` out of sight too while the mode is on (a page's own controls, which only it knows).
    void addChrome(QWidget* widget) { chrome_.push_back(widget); }
    /// While the mode is on, `splitter` shares its width by `weights` (one per pane), restored on leaving.
    /// A projector's audience reads the grid's tiles from across a room: the panes a desk screen balances
    /// for one reader leave the tiles small.
    void setPaneWeights(QSplitter* splitter, QList<int> weights);

    bool active() const { return active_; }
    void setActive(bool active);
    void toggle() { setActive(!active_); }

    static constexpr double kFontScale = 1.6;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

Q_SIGNALS:
    void activeChanged(bool active);

private:
    QMainWindow* window_;
    QList<QWidget*> chrome_;
    bool active_ = false;
    bool wasMaximized_ = false;
    bool wasFullScreen_ = false;
    QFont font_;
    struct Panes {
        QSplitter* splitter;
        QList<int> weights;
        QList<int> savedSizes;
        QList<int> savedStretch;
        int savedWidth = -1; // the splitter's width the saved sizes belong to; -1 once they are back
    };
    std::vector<Panes> panes_;
    int menuHeight_ = -1;
};

} // namespace ui
