#pragma once
// The File ▸ Export actions: ask where (and at what scale), then write through Exporter and say what
// happened. Kept out of MainWindow so the window only wires.

#include "core/analysis/Attribution.h"
#include "core/analysis/LogitLens.h"
#include "ui/run/InsideResult.h"

#include <QObject>

#include <functional>

class QAction;
class QCustomPlot;
class QWidget;

namespace ui {

class AnalysisController;
class ViewState;

class ExportActions : public QObject {
    Q_OBJECT
public:
    /// `currentView` returns the widget "Export Picture" captures (the page on screen).
    ExportActions(QWidget* window, ViewState* state, AnalysisController* controller,
                  std::function<QWidget*()> currentView);

    QList<QAction*> actions() const;
    /// Where "Export Inside Numbers" takes its row from (the Inside page's shown row; null: none).
    void setInsideSource(std::function<InsideResultPtr()> source) { inside_ = std::move(source); }
    /// Where "Export Lens as JSON" and "Export Attribution as JSON" take what the Logit lens page shows
    /// (null: nothing computed yet).
    void setLensSource(std::function<const core::LogitLens*()> lens,
                       std::function<const core::Attribution*()> attribution) {
        lens_ = std::move(lens);
        attribution_ = std::move(attribution);
    }
    /// Where "Export Figure" finds the next-token chart.
    void setPlotSource(std::function<QCustomPlot*(const QString&)> plot) { plot_ = std::move(plot); }
    /// Enables the actions that have something to export.
    void updateEnabled();
    /// From now on enables them as the analysis changes: call once the pages it exports from (the Inside
    /// page's row) follow the analysis, so they have taken each result or clearing first.
    void attach();

Q_SIGNALS:
    /// A line for the status bar: what was written, or why not.
    void message(const QString& text);

private:
    /// The actions with their texts, shortcuts and tooltips; the constructor connects them.
    void createActions();
    /// What each action does when triggered.
    void exportInsideNumbers();
    void exportLens(bool attribution);
    void exportPicture();
    void exportFigure();
    void exportAllHeads();
    void exportHead(bool json);
    void exportKind(bool json);
    QString askPath(const QString& title, const QString& suggested, const QString& filter);
    void report(bool ok, const QString& path, const QString& error);
    QString baseName(bool oneHead) const;

    QWidget* window_;
    ViewState* state_;
    AnalysisController* controller_;
    std::function<QWidget*()> currentView_;
    QAction* picture_ = nullptr;
    QAction* figure_ = nullptr;
    QAction* allHeads_ = nullptr;
    QAction* headCsv_ = nullptr;
    QAction* headJson_ = nullptr;
    QAction* kindCsv_ = nullptr;
    QAction* kindJson_ = nullptr;
    QAction* insideJson_ = nullptr;
    QAction* lensJson_ = nullptr;
    QAction* attributionJson_ = nullptr;
    std::function<InsideResultPtr()> inside_;
    std::function<const core::LogitLens*()> lens_;
    std::function<const core::Attribution*()> attribution_;
    std::function<QCustomPlot*(const QString&)> plot_;
};

} // namespace ui
