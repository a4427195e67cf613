#pragma once
// Lets the window's shortcuts through a text field. A QLineEdit claims Ctrl+←/→ (word moves), Ctrl+Home/End
// and Ctrl+E (end of line) for itself, so Step, Back, Reset, Run to end and Export did nothing while the
// Source field had the focus, which is exactly where a user is after typing. Installed on the field, this
// filter refuses the field those key sequences, and the window's actions take them.

#include <QKeySequence>
#include <QList>
#include <QObject>

namespace ui {

class ShortcutPassThrough : public QObject {
    Q_OBJECT
public:
    /// Filters `field` (and is owned by it); `keys` are the sequences the window's actions keep.
    ShortcutPassThrough(QObject* field, QList<QKeySequence> keys);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QList<QKeySequence> keys_;
};

} // namespace ui
