#pragma once
// `attnscope --startup-time`: how long a start takes, from the process's creation to the window's first
// paint and to its heatmaps painted with the first analysis, printed on stdout; then the program quits.

#include <QObject>

namespace ui {
class MainWindow;
}

/// Watches the window's paint events. "First paint" is the window's first paint event; "analysis shown"
/// is the first paint after the analysis that the start asked for has reached the window (the controller
/// idle again with a result).
class StartupProbe : public QObject {
public:
    explicit StartupProbe(ui::MainWindow* window);

    /// Milliseconds since this process was created (by the kernel's clock; 10 ms resolution).
    static double msSinceProcessStart();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    static constexpr int kGiveUpMs = 120000;
    ui::MainWindow* window_;
    double firstPaintMs_ = -1.0;
};
