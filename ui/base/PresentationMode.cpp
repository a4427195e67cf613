#include "ui/base/PresentationMode.h"

#include "ui/base/QCustomPlotInclude.h"

#include <QEvent>
#include <QMainWindow>
#include <QMenuBar>
#include <QSplitter>
#include <QStatusBar>
#include <QWidget>

namespace ui {

namespace {

// QCustomPlot copies its fonts when it builds an axis or a title: a window font does not reach them.
void scalePlotFonts(QWidget* window, double factor) {
    const auto scaled = [factor](QFont f) {
        f.setPointSizeF(f.pointSizeF() * factor);
        return f;
    };
    for (auto* plot : window->findChildren<QCustomPlot*>()) {
        for (auto* axis : plot->findChildren<QCPAxis*>()) {
            axis->setLabelFont(scaled(axis->labelFont()));
            axis->setTickLabelFont(scaled(axis->tickLabelFont()));
        }
        for (auto* text : plot->findChildren<QCPTextElement*>())
            text->setFont(scaled(text->font()));
        plot->replot(QCustomPlot::rpQueuedReplot);
    }
}

// QSplitter shares a change of its width by the panes' stretch factors, so a full-screen switch that lands
// after the sizes are set keeps their proportions only if the stretch factors are the weights too.
void sharePanes(QSplitter* splitter, const QList<int>& sizes, const QList<int>& stretch) {
    for (int i = 0; i < splitter->count() && i < stretch.size(); ++i)
        splitter->setStretchFactor(i, stretch[i]);
    splitter->setSizes(sizes);
}

// The splitter's width in pixels by weight: setSizes given small numbers meets the panes' minimum widths
// first and ends far from the proportions.
QList<int> shares(QSplitter* splitter, const QList<int>& weights) {
    int total = 0;
    for (int w : weights)
        total += w;
    const int room = std::max(splitter->width() - (splitter->count() - 1) * splitter->handleWidth(), 0);
    QList<int> sizes;
    for (int w : weights)
        sizes.push_back(total > 0 ? room * w / total : 0);
    return sizes;
}

} // namespace

void PresentationMode::setPaneWeights(QSplitter* splitter, QList<int> weights) {
    panes_.push_back({splitter, std::move(weights), {}, {}, -1});
    splitter->installEventFilter(this);
}

// Leaving full screen resizes the window after setActive returns (the window manager answers later), and
// a splitter shares that resize by stretch factors, not as it was: the saved sizes are put back once the
// splitter has its old width again.
bool PresentationMode::eventFilter(QObject* watched, QEvent* event) {
    if (watched == window_ && event->type() == QEvent::Close && active_)
        setActive(false);
    if (event->type() == QEvent::Resize && !active_) {
        for (auto& panes : panes_) {
            if (panes.splitter != watched || panes.savedWidth < 0)
                continue;
            // The first resize after leaving is the window coming back: it restores when it brings the old
            // width back, and either way ends the wait, so a user's later resize to that width is left alone.
            if (panes.savedWidth == panes.splitter->width())
                panes.splitter->setSizes(panes.savedSizes);
            panes.savedWidth = -1;
        }
    }
    return QObject::eventFilter(watched, event);
}

PresentationMode::PresentationMode(QMainWindow* window, QList<QWidget*> chrome)
    : QObject(window), window_(window), chrome_(std::move(chrome)) {
    // Closing the window in the mode leaves it first, so the window saves the desk's layout, not the room's.
    window_->installEventFilter(this);
}

void PresentationMode::setActive(bool active) {
    if (active == active_)
        return;
    active_ = active;
    auto* menu = window_->menuBar();
    if (active) {
        wasMaximized_ = window_->isMaximized();
        wasFullScreen_ = window_->isFullScreen();
        font_ = window_->font();
        QFont large = font_;
        large.setPointSizeF(font_.pointSizeF() * kFontScale);
        window_->setFont(large);
        scalePlotFonts(window_, kFontScale);
        // A hidden menu bar takes its menus' shortcuts with it; a collapsed one keeps them.
        menuHeight_ = menu->maximumHeight();
        menu->setMaximumHeight(0);
        window_->statusBar()->hide();
        for (auto* w : chrome_)
            w->hide();
        for (auto& panes : panes_) {
            panes.savedSizes = panes.splitter->sizes();
            panes.savedWidth = panes.splitter->width();
            panes.savedStretch.clear();
            for (int i = 0; i < panes.splitter->count(); ++i)
                panes.savedStretch.push_back(panes.splitter->widget(i)->sizePolicy().horizontalStretch());
            sharePanes(panes.splitter, shares(panes.splitter, panes.weights), panes.weights);
        }
        window_->showFullScreen();
    } else {
        window_->setFont(font_);
        scalePlotFonts(window_, 1.0 / kFontScale);
        menu->setMaximumHeight(menuHeight_);
        window_->statusBar()->show();
        for (auto* w : chrome_)
            w->show();
        for (auto& panes : panes_) {
            sharePanes(panes.splitter, panes.savedSizes, panes.savedStretch);
            if (panes.splitter->width() == panes.savedWidth)
                panes.savedWidth = -1;
        }
        if (wasFullScreen_)
            window_->showFullScreen();
        else if (wasMaximized_)
            window_->showMaximized();
        else
            window_->showNormal();
    }
    Q_EMIT activeChanged(active_);
}

} // namespace ui
