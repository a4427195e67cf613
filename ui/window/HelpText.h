#pragma once
// The texts of the Help menu (the keyboard shortcuts, the About box) and the Source field's help.

#include "ui/base/Pages.h"

#include <QCoreApplication>
#include <QString>

namespace core {
struct ModelConfig;
}

class QKeySequence;
class QMenuBar;

namespace ui {

class HelpText {
    Q_DECLARE_TR_FUNCTIONS(ui::HelpText)
public:
    /// The keyboard shortcuts as an HTML table: every shortcut of the menus' actions, read from the
    /// actions themselves so the list cannot drift from them, then the keys the views handle themselves.
    static QString shortcuts(const QMenuBar* menus);
    /// A key as the help writes it: Qt's text with arrow keys as arrows ("Ctrl+→").
    static QString keyText(const QKeySequence& key);
    /// The versions of attnscope, Qt, LibTorch and QCustomPlot, and how the core computes.
    static QString about();
    /// A text the model takes, offered in the empty Source field: the config's own example, else one for
    /// its kind (a prompt to continue, a sentence with a mask to fill, a sentence to translate).
    static QString examplePrompt(const core::ModelConfig& config);
    /// The empty Source field's text: the example, and that Enter takes it.
    static QString sourcePlaceholder(const core::ModelConfig& config);
    /// The Source field's tooltip, with the model's description and example when it has them (null: none
    /// loaded yet).
    static QString sourceToolTip(const core::ModelConfig* config);
    /// The tooltip of a page's tab, with its shortcut; empty for the research pages, which set their own.
    static QString pageToolTip(Page page);
};

} // namespace ui
