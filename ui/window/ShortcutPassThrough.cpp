#include "ui/window/ShortcutPassThrough.h"

#include <QKeyEvent>

namespace ui {

ShortcutPassThrough::ShortcutPassThrough(QObject* field, QList<QKeySequence> keys)
    : QObject(field), keys_(std::move(keys)) {
    field->installEventFilter(this);
}

bool ShortcutPassThrough::eventFilter(QObject* watched, QEvent* event) {
    // Before a key reaches a focused widget Qt asks it whether it overrides a shortcut; the field says yes
    // to its editing keys. Answering for it, unaccepted, leaves the key to the shortcut.
    if (event->type() == QEvent::ShortcutOverride) {
        const auto* key = static_cast<QKeyEvent*>(event);
        const QKeySequence pressed(key->keyCombination());
        for (const auto& k : keys_)
            if (k.matches(pressed) == QKeySequence::ExactMatch) {
                event->ignore();
                return true;
            }
    }
    return QObject::eventFilter(watched, event);
}

} // namespace ui
