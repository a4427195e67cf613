#pragma once
// The window for a projector: full screen, larger fonts, the chrome (menu bar, status bar, tab bar, the
// colour controls) out of sight, the step controls and the source field kept. F11 or Escape leaves it
// as it was. The menu bar is collapsed, not hidden, so every menu shortcut still works.

#include <QFont>
#include <QList>
#include <QObject>

class QMainWindow;
class QWidget;

namespace ui {

class PresentationMode : public QObject {
    Q_OBJECT
public:
    /// `chrome`: the widgets to put out of sight besides the menu and status bars.
    PresentationMode(QMainWindow* window, QList<QWidget*> chrome);

    bool active() const { return active_; }
    void setActive(bool active);
    void toggle() { setActive(!active_); }

    static constexpr double kFontScale = 1.6;

Q_SIGNALS:
    void activeChanged(bool active);

private:
    QMainWindow* window_;
    QList<QWidget*> chrome_;
    bool active_ = false;
    bool wasMaximized_ = false;
    bool wasFullScreen_ = false;
    QFont font_;
    int menuHeight_ = -1;
};

} // namespace ui
