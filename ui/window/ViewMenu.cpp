#include "ui/window/ViewMenu.h"

#include "ui/attention/AttentionPage.h"
#include "ui/base/PresentationMode.h"
#include "ui/base/ViewState.h"

#include <QAction>
#include <QCheckBox>
#include <QLineEdit>
#include <QMainWindow>
#include <QTabBar>
#include <QTabWidget>

#include <algorithm>
#include <utility>
#include <vector>

namespace ui {

using core::AttentionKind;

ViewMenu::ViewMenu(AttentionPage* attention, ViewState* state, QLineEdit* source, QTabWidget* tabs,
                   std::function<void(int)> showPage, QMainWindow* window)
    : QMenu(tr("&View"), window) {
    const std::pair<AttentionKind, QString> kinds[] = {
        {AttentionKind::Encoder, tr("&Encoder Self-Attention")},
        {AttentionKind::Decoder, tr("&Decoder Self-Attention")},
        {AttentionKind::Cross, tr("&Cross-Attention")},
        {AttentionKind::Pooling, tr("Attention &Pooling")}};
    std::vector<std::pair<AttentionKind, QAction*>> kindActions;
    for (int i = 0; i < 4; ++i) {
        auto* a = addAction(kinds[i].second, attention,
                            [attention, k = kinds[i].first] { attention->selectKind(k); });
        a->setShortcut(QKeySequence(Qt::CTRL | (Qt::Key_1 + i)));
        kindActions.emplace_back(kinds[i].first, a);
    }
    // Only the kinds the shown model has can be picked (a recurrent model's pooling, say).
    const auto offer = [kindActions](const std::vector<AttentionKind>& offered) {
        for (const auto& [kind, action] : kindActions)
            action->setEnabled(std::find(offered.begin(), offered.end(), kind) != offered.end());
    };
    offer(attention->kinds());
    connect(attention, &AttentionPage::kindsChanged, this, offer);
    addSeparator();
    addAction(tr("Per-head Colour &Scale"), state, [state] {
        state->toggleScaleMode(ScaleMode::PerHead);
    })->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_K));
    addAction(tr("&Logarithmic Colour Scale"), state, [state] {
        state->toggleScaleMode(ScaleMode::Log);
    })->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_K));
    addAction(tr("L&ines View"), state, [state] {
        state->setLinesShown(!state->linesShown());
    })->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L));
    // The heatmap's zoom, wherever the focus is (the wheel zooms about the pointer, a drag pans).
    addAction(tr("&Zoom In"), attention, [attention] {
        attention->zoomBy(0.8);
    })->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Plus), QKeySequence(Qt::CTRL | Qt::Key_Equal)});
    addAction(tr("Zoom &Out"), attention, [attention] {
        attention->zoomBy(1.25);
    })->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Minus));
    addAction(tr("&Whole Map"), attention, [attention] {
        attention->resetZoom();
    })->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    addAction(tr("Edit &Source"), source, [source] {
        source->setFocus();
        source->selectAll();
    })->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
    addSeparator();
    addAction(tr("&Attention"), this, [showPage] {
        showPage(0);
    })->setShortcut(QKeySequence(Qt::ALT | Qt::Key_1));
    positional_ = addAction(tr("&Positional Encodings"), this, [showPage] { showPage(1); });
    positional_->setShortcut(QKeySequence(Qt::ALT | Qt::Key_2));
    addAction(tr("&Train"), this, [showPage] {
        showPage(2);
    })->setShortcut(QKeySequence(Qt::ALT | Qt::Key_3));
    addAction(tr("&Heads"), this, [showPage] {
        showPage(3);
    })->setShortcut(QKeySequence(Qt::ALT | Qt::Key_4));
    addAction(tr("&Inside"), this, [showPage] {
        showPage(4);
    })->setShortcut(QKeySequence(Qt::ALT | Qt::Key_5));
    addAction(tr("Side b&y Side"), this, [showPage] {
        showPage(5);
    })->setShortcut(QKeySequence(Qt::ALT | Qt::Key_6));
    addAction(tr("&Rollout and Flow"), this, [showPage] {
        showPage(6);
    })->setShortcut(QKeySequence(Qt::ALT | Qt::Key_7));
    addAction(tr("A&blation"), this, [showPage] {
        showPage(7);
    })->setShortcut(QKeySequence(Qt::ALT | Qt::Key_8));
    addAction(tr("C&ompare"), this, [showPage] {
        showPage(8);
    })->setShortcut(QKeySequence(Qt::ALT | Qt::Key_9));
    addAction(tr("Lo&git Lens"), this, [showPage] {
        showPage(9);
    })->setShortcut(QKeySequence(Qt::ALT | Qt::Key_0));
    addSeparator();
    auto* present = addAction(tr("P&resentation"));
    present->setObjectName(QStringLiteral("presentationAction"));
    present->setCheckable(true);
    present->setShortcut(QKeySequence(Qt::Key_F11));
    present->setToolTip(
        tr("Full screen, large fonts, only the views and the step controls (F11 or Esc leaves)"));
    auto* presentation = presentation_ = new PresentationMode(window, {tabs->tabBar()});
    attention->joinPresentation(presentation);
    connect(present, &QAction::toggled, presentation, &PresentationMode::setActive);
    connect(presentation, &PresentationMode::activeChanged, present, &QAction::setChecked);
    auto* leave = new QAction(tr("Leave Presentation"), window);
    leave->setShortcut(QKeySequence(Qt::Key_Escape));
    leave->setEnabled(false); // Escape belongs to the widgets until the mode is on
    connect(leave, &QAction::triggered, presentation, [presentation] { presentation->setActive(false); });
    connect(presentation, &PresentationMode::activeChanged, leave, &QAction::setEnabled);
    addAction(leave); // listed under View, and a window shortcut like the rest: Escape from any widget
}

} // namespace ui
