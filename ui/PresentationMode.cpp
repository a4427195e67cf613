#include "ui/PresentationMode.h"

#include "ui/QCustomPlotInclude.h"

#include <QMainWindow>
#include <QMenuBar>
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

} // namespace

PresentationMode::PresentationMode(QMainWindow* window, QList<QWidget*> chrome)
    : QObject(window), window_(window), chrome_(std::move(chrome)) {}

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
        window_->showFullScreen();
    } else {
        window_->setFont(font_);
        scalePlotFonts(window_, 1.0 / kFontScale);
        menu->setMaximumHeight(menuHeight_);
        window_->statusBar()->show();
        for (auto* w : chrome_)
            w->show();
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
