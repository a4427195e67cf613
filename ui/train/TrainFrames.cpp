#include "ui/train/TrainFrames.h"

#include "ui/train/TrainFilm.h"
#include "ui/views/AttentionGrid.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSlider>
#include <QVBoxLayout>

namespace ui {

TrainFrames::TrainFrames(const TrainFilm& film, QWidget* parent) : QWidget(parent), film_(film) {
    grid_ = new AttentionGrid(this);
    grid_->setObjectName(QStringLiteral("trainGrid"));
    grid_->setNothingYetText(
        tr("No run yet: Start trains the model, and the probe's attention shows here as it "
           "learns"));
    grid_->setShown({nullptr, core::AttentionKind::Cross});
    grid_->setToolTip(tr("Attention of the probe example, captured while the model learns: cross-attention "
                         "of an encoder–decoder, self-attention of a decoder-only model, a classifier's "
                         "pooling"));
    slider_ = new QSlider(Qt::Horizontal, this);
    slider_->setObjectName(QStringLiteral("frameSlider"));
    slider_->setToolTip(tr("Scrub back through the captured frames"));
    slider_->setEnabled(false);
    label_ = new QLabel(this);
    label_->setTextFormat(Qt::PlainText);

    auto* col = new QVBoxLayout(this);
    col->setContentsMargins(0, 0, 0, 0);
    col->addWidget(grid_, 1);
    auto* row = new QHBoxLayout;
    row->addWidget(slider_, 1);
    row->addWidget(label_);
    col->addLayout(row);
    connect(slider_, &QSlider::valueChanged, this, &TrainFrames::showFrame);
}

void TrainFrames::restart() {
    follow_ = true;
    slider_->setEnabled(false);
}

void TrainFrames::frameAdded() {
    const int newest = film_.frames() - 1;
    const auto snap = film_.frame(newest);
    if (!snap)
        return;
    // Where a task shows: an encoder–decoder's cross-attention, a classifier's pooling row, a decoder-only
    // model's self-attention.
    const auto kind = snap->has(core::AttentionKind::Cross)     ? core::AttentionKind::Cross
                      : snap->has(core::AttentionKind::Pooling) ? core::AttentionKind::Pooling
                                                                : core::AttentionKind::Decoder;
    if (grid_->shown().kind != kind)
        grid_->setShown({nullptr, kind});
    {
        const QSignalBlocker block(slider_); // the range moving the slider is no choice of a frame
        slider_->setRange(0, newest);
    }
    slider_->setEnabled(newest > 0);
    if (follow_)
        showFrame(newest);
}

void TrainFrames::showFrame(int index) {
    if (index < 0 || index >= film_.frames())
        return;
    auto shown = grid_->shown();
    shown.snapshot = film_.frame(index);
    grid_->setShown(shown);
    label_->setText(film_.label(index));
    follow_ = index == film_.frames() - 1;
    if (slider_->value() != index)
        slider_->setValue(index);
}

void TrainFrames::holdFrame(int index) {
    showFrame(index);
    follow_ = false;
}

int TrainFrames::shownFrame() const {
    return slider_->value();
}

} // namespace ui
