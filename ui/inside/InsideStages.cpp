#include "ui/inside/InsideStages.h"

#include <QEvent>
#include <QGridLayout>
#include <QScrollArea>
#include <QScrollBar>

#include <algorithm>

namespace ui {

namespace {
constexpr int kStageHeight = 270; // a stage's charts need this much to show their cells
} // namespace

InsideStages::InsideStages(QScrollArea* scroll) : QWidget(scroll), scroll_(scroll) {
    grid_ = new QGridLayout(this);
    scroll_->setWidgetResizable(true);
    scroll_->setWidget(this);
    scroll_->viewport()->installEventFilter(this);
}

void InsideStages::addStage(QWidget* stage) {
    stage->setParent(this);
    stage->installEventFilter(this); // shown, hidden or grown: the room two columns need changes
    stages_.push_back(stage);
    columns_ = 0; // arranged afresh
    reflow();
}

int InsideStages::twoColumnWidth() const {
    // A grid's column is as wide as its widest stage: the left column's widest and the right's, whichever
    // rows they stand in.
    int widest[2] = {0, 0};
    for (std::size_t i = 0; i < stages_.size(); ++i)
        if (!stages_[i]->isHidden())
            widest[i % 2] = std::max(widest[i % 2], stages_[i]->minimumSizeHint().width());
    const auto m = grid_->contentsMargins();
    return widest[0] + widest[1] + grid_->horizontalSpacing() + m.left() + m.right();
}

bool InsideStages::eventFilter(QObject* watched, QEvent* event) {
    const auto type = event->type();
    if ((watched == scroll_->viewport() && type == QEvent::Resize) ||
        (watched != scroll_->viewport() &&
         (type == QEvent::Show || type == QEvent::Hide || type == QEvent::LayoutRequest)))
        reflow();
    return QWidget::eventFilter(watched, event);
}

void InsideStages::reflow() {
    // The room the stages may take without scrolling sideways: the viewport, and the vertical scrollbar's
    // width kept aside so its coming and going cannot flip the arrangement back and forth.
    const int room = scroll_->width() - scroll_->verticalScrollBar()->sizeHint().width();
    arrange(room >= twoColumnWidth() ? 2 : 1);
}

void InsideStages::arrange(int columns) {
    if (columns == columns_)
        return;
    columns_ = columns;
    for (auto* stage : stages_)
        grid_->removeWidget(stage);
    for (int r = 0; r < grid_->rowCount(); ++r)
        grid_->setRowMinimumHeight(r, 0);
    for (std::size_t i = 0; i < stages_.size(); ++i) {
        const int row = static_cast<int>(i) / columns, column = static_cast<int>(i) % columns;
        grid_->addWidget(stages_[i], row, column);
        grid_->setRowMinimumHeight(row, kStageHeight);
    }
    grid_->setColumnStretch(0, 1);
    grid_->setColumnStretch(1, columns == 2 ? 1 : 0);
}

} // namespace ui
