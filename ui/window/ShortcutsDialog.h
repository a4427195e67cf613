#pragma once
// Help ▸ Keyboard Shortcuts: the shortcuts' table in a dialog that fits the screen it opens on. The table
// is longer than a projector's 768 px, so it scrolls and the OK button stays on screen.

#include <QDialog>

class QTextBrowser;

namespace ui {

class ShortcutsDialog : public QDialog {
    Q_OBJECT
public:
    ShortcutsDialog(const QString& html, QWidget* parent);

    /// The table's view, for tests.
    QTextBrowser* browser() const { return browser_; }

private:
    QTextBrowser* browser_ = nullptr;
};

} // namespace ui
