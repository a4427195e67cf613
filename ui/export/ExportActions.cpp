#include "ui/export/ExportActions.h"

#include "core/model/Model.h"
#include "ui/base/AppSettings.h"
#include "ui/base/ViewState.h"
#include "ui/export/AttentionFigure.h"
#include "ui/export/Exporter.h"
#include "ui/export/FigureDialog.h"
#include "ui/export/FigureWriter.h"
#include "ui/run/AnalysisController.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QMessageBox>
#include <QProgressDialog>
#include <QWidget>

namespace ui {

ExportActions::ExportActions(QWidget* window, ViewState* state, AnalysisController* controller,
                             std::function<QWidget*()> currentView)
    : QObject(window), window_(window), state_(state), controller_(controller),
      currentView_(std::move(currentView)) {
    createActions();
    connect(insideJson_, &QAction::triggered, this, [this] { exportInsideNumbers(); });
    connect(lensJson_, &QAction::triggered, this, [this] { exportLens(false); });
    connect(attributionJson_, &QAction::triggered, this, [this] { exportLens(true); });
    connect(picture_, &QAction::triggered, this, [this] { exportPicture(); });
    connect(figure_, &QAction::triggered, this, [this] { exportFigure(); });
    connect(allHeads_, &QAction::triggered, this, [this] { exportAllHeads(); });
    connect(headCsv_, &QAction::triggered, this, [this] { exportHead(false); });
    connect(headJson_, &QAction::triggered, this, [this] { exportHead(true); });
    connect(kindCsv_, &QAction::triggered, this, [this] { exportKind(false); });
    connect(kindJson_, &QAction::triggered, this, [this] { exportKind(true); });
    connect(state_, &ViewState::kindChanged, this, &ExportActions::updateEnabled);
    updateEnabled();
}

void ExportActions::attach() {
    // What there is to export follows the analysis, after the pages it exports from have taken its news.
    connect(controller_, &AnalysisController::resultChanged, this, &ExportActions::updateEnabled);
    connect(controller_, &AnalysisController::cleared, this, &ExportActions::updateEnabled);
    connect(controller_, &AnalysisController::insideReady, this, &ExportActions::updateEnabled);
}

// The constructor connects these; actions() hands them to the menu in this order.
void ExportActions::createActions() {
    picture_ = new QAction(tr("Export &Picture…"), this);
    picture_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    picture_->setToolTip(tr("Save the page on screen as PNG (at a chosen scale), SVG or PDF"));
    figure_ = new QAction(tr("Export &Figure…"), this);
    figure_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F));
    figure_->setToolTip(tr("One figure for a paper (the shown head, every head, or the next-token chart) as "
                           "PNG at a chosen DPI, SVG or PDF, cells as vector rectangles"));
    allHeads_ = new QAction(tr("Export Every Head to F&older…"), this);
    allHeads_->setToolTip(
        tr("Every layer × head of the shown kind (and each layer's mean) as its own figure, "
           "PDF, SVG or PNG, and all their weights in one CSV, into a folder"));
    headCsv_ = new QAction(tr("Export Head as &CSV…"), this);
    headCsv_->setToolTip(tr("The weights of the shown head (or layer mean) as a CSV matrix"));
    headJson_ = new QAction(tr("Export Head as &JSON…"), this);
    headJson_->setToolTip(tr("The shown head in the dump format, shape [1][1][queries][keys]"));
    kindCsv_ = new QAction(tr("Export All Heads as C&SV…"), this);
    kindCsv_->setToolTip(tr("Every head of the shown attention kind, one row per layer, head and query"));
    kindJson_ = new QAction(tr("Export All Heads as J&SON…"), this);
    kindJson_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    kindJson_->setToolTip(tr("Every head of the shown attention kind in the dump format"));

    insideJson_ = new QAction(tr("Export &Inside Numbers as JSON…"), this);
    insideJson_->setToolTip(
        tr("The Inside page's row, every stage from x to the sampled token, in the format "
           "of attnscope explain"));
    lensJson_ = new QAction(tr("Export Le&ns as JSON…"), this);
    lensJson_->setToolTip(tr("The Logit lens page's readings, every point and position, in the format of "
                             "attnscope lens"));
    attributionJson_ = new QAction(tr("Export A&ttribution as JSON…"), this);
    attributionJson_->setToolTip(tr("The Logit lens page's attribution of the selected position, every head, "
                                    "MLP and norm, in the format of attnscope attribute"));
}

// What the Logit lens page computed last; it says so when it has nothing yet.
void ExportActions::exportLens(bool attribution) {
    const auto* lens = lens_ ? lens_() : nullptr;
    const auto* parts = attribution_ ? attribution_() : nullptr;
    const auto current = controller_->current();
    if (!current || (attribution ? !parts : !lens)) {
        Q_EMIT message(tr("Nothing to export yet: show the Logit lens page (Alt+0) and let it compute."));
        return;
    }
    const auto name = QString::fromStdString(current->snapshot->modelName);
    const auto step = QStringLiteral("-step%1").arg(current->step);
    const auto path =
        askPath(attribution ? tr("Export Attribution as JSON") : tr("Export Lens as JSON"),
                attribution ? QStringLiteral("attribution-position%1%2.json").arg(parts->position).arg(step)
                            : QStringLiteral("lens%1.json").arg(step),
                tr("JSON (*.json)"));
    if (path.isEmpty())
        return;
    QString error;
    if (attribution) {
        const auto& model = *current->model;
        const auto& vocab =
            (model.config().hasDecoder() ? model.targetTokenizer() : model.sourceTokenizer()).vocab();
        report(Exporter::saveAttributionJson(*parts, vocab, name, path, &error), path, error);
    } else {
        report(Exporter::saveLensJson(*lens, name, path, &error), path, error);
    }
}

// Nothing to ask without a row on the Inside page; the file is in the format of attnscope explain.
void ExportActions::exportInsideNumbers() {
    const auto r = inside_ ? inside_() : nullptr;
    if (!r)
        return;
    const auto& q = r->row.query;
    const auto path = askPath(tr("Export Inside Numbers"),
                              QStringLiteral("inside-%1-L%2-H%3-row%4-step%5.json")
                                  .arg(QString::fromLatin1(core::toString(q.kind)))
                                  .arg(q.layer)
                                  .arg(q.head)
                                  .arg(q.row)
                                  .arg(r->step),
                              tr("JSON (*.json)"));
    if (path.isEmpty())
        return;
    const auto current = controller_->current();
    const auto name =
        current && current->model ? QString::fromStdString(current->snapshot->modelName) : QString();
    QString error;
    report(Exporter::saveInsideJson(r->row, r->pipeline, name, path, &error), path, error);
}

// Only a PNG asks a scale: SVG and PDF draw the page's plots as vectors.
void ExportActions::exportPicture() {
    const auto path = askPath(tr("Export Picture"), baseName(false) + QStringLiteral(".png"),
                              tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)"));
    if (path.isEmpty())
        return;
    double scale = 1.0;
    if (QFileInfo(path).suffix().compare(QLatin1String("png"), Qt::CaseInsensitive) == 0) {
        bool ok = false;
        scale = QInputDialog::getDouble(window_, tr("PNG scale"),
                                        tr("Scale (2 = twice the pixels of the screen):"), 2.0, 0.25, 8.0, 2,
                                        &ok);
        if (!ok)
            return;
    }
    QString error;
    report(Exporter::savePicture(currentView_(), path, scale, &error), path, error);
}

// The dialog chooses the figure and its heads; a bad list of heads is reported before any file is asked for.
void ExportActions::exportFigure() {
    FigureDialog dialog(AttentionFigure::title(state_->shown()), window_);
    if (dialog.exec() != QDialog::Accepted)
        return;
    const QString which = dialog.figure();
    std::vector<int> heads;
    QString error;
    const auto* block = state_->shown().block();
    if (!AttentionFigure::parseHeads(dialog.heads(), block ? block->heads : 0, &heads, &error)) {
        report(false, QString(), error);
        return;
    }
    const QString base = which == QLatin1String("candidates") ? QStringLiteral("next-token")
                         : which == QLatin1String("curves")   ? QStringLiteral("positional-curves")
                                                              : baseName(which == QLatin1String("heatmap"));
    const auto path = askPath(tr("Export Figure"), base + QStringLiteral(".pdf"),
                              tr("PDF document (*.pdf);;SVG drawing (*.svg);;PNG image (*.png)"));
    if (path.isEmpty())
        return;
    report(AttentionFigure::save(which, state_->shown(), plot_, dialog.style(), path, &error, heads), path,
           error);
}

// Asks the format and folder only: the style is the last one the figure dialog kept.
void ExportActions::exportAllHeads() {
    bool ok = false;
    const QString format = QInputDialog::getItem(
        window_, tr("Export Every Head"), tr("Format of each figure:"),
        {QStringLiteral("pdf"), QStringLiteral("svg"), QStringLiteral("png")}, 0, false, &ok);
    if (!ok)
        return;
    const QString dir = QFileDialog::getExistingDirectory(window_, tr("Export Every Head to Folder"),
                                                          AppSettings::exportDir());
    if (dir.isEmpty())
        return;
    AppSettings::setExportDir(dir);
    const auto choice = AppSettings::figureChoice();
    FigureStyle style;
    style.fontPt = choice.fontPt;
    style.dpi = choice.dpi;
    style.title = choice.titled ? QStringLiteral("-") : QString(); // each figure gets its head's title
    QProgressDialog progress(tr("Writing every head…"), tr("Cancel"), 0, 1, window_);
    progress.setWindowModality(Qt::WindowModal);
    progress.setMinimumDuration(300);
    QString error;
    const int written = AttentionFigure::saveAllHeads(
        state_->shown(), dir, format, style,
        [&progress](int done, int total) {
            progress.setMaximum(total);
            progress.setValue(done);
            return !progress.wasCanceled();
        },
        &error);
    progress.reset();
    if (written < 0)
        report(false, dir, error);
    else
        Q_EMIT message(tr("Wrote %n file(s) to %1", nullptr, written).arg(QDir::toNativeSeparators(dir)));
}

// One head (or layer mean) of the shown kind; json: the dump format, else a CSV matrix.
void ExportActions::exportHead(bool json) {
    const auto r = controller_->current();
    if (!r)
        return;
    const auto path = askPath(json ? tr("Export Head as JSON") : tr("Export Head as CSV"),
                              baseName(true) + (json ? QStringLiteral(".json") : QStringLiteral(".csv")),
                              json ? tr("JSON (*.json)") : tr("CSV (*.csv)"));
    if (path.isEmpty())
        return;
    QString error;
    const bool ok = json ? Exporter::saveHeadJson(*r->snapshot, state_->kind(), state_->layer(),
                                                  state_->head(), r->sourceText, r->decodedText, path, &error,
                                                  Exporter::runFields(*r, controller_->sampling()))
                         : Exporter::saveHeadCsv(*r->snapshot, state_->kind(), state_->layer(),
                                                 state_->head(), path, &error);
    report(ok, path, error);
}

// Every head of the shown kind; json: the dump format, else one CSV row per layer, head and query.
void ExportActions::exportKind(bool json) {
    const auto r = controller_->current();
    if (!r)
        return;
    const auto path = askPath(json ? tr("Export All Heads as JSON") : tr("Export All Heads as CSV"),
                              baseName(false) + (json ? QStringLiteral(".json") : QStringLiteral(".csv")),
                              json ? tr("JSON (*.json)") : tr("CSV (*.csv)"));
    if (path.isEmpty())
        return;
    QString error;
    const bool ok =
        json ? Exporter::saveKindJson(*r->snapshot, state_->kind(), r->sourceText, r->decodedText, path,
                                      &error, Exporter::runFields(*r, controller_->sampling()))
             : Exporter::saveKindCsv(*r->snapshot, state_->kind(), path, &error);
    report(ok, path, error);
}

QList<QAction*> ExportActions::actions() const {
    return {picture_, figure_,   allHeads_,   headCsv_,  headJson_,
            kindCsv_, kindJson_, insideJson_, lensJson_, attributionJson_};
}

void ExportActions::updateEnabled() {
    const bool has =
        controller_->current() && !controller_->current()->snapshot->block(state_->kind()).empty();
    for (auto* a : {figure_, allHeads_, headCsv_, headJson_, kindCsv_, kindJson_})
        a->setEnabled(has);
    insideJson_->setEnabled(inside_ && inside_());
    // The lens and its attribution come after the result, in the background: asked then, they say if not.
    lensJson_->setEnabled(controller_->current() != nullptr);
    attributionJson_->setEnabled(controller_->current() != nullptr);
}

QString ExportActions::baseName(bool oneHead) const {
    QString name = QStringLiteral("attention-%1").arg(QString::fromLatin1(core::toString(state_->kind())));
    if (oneHead)
        name += QStringLiteral("-L%1-%2")
                    .arg(state_->layer())
                    .arg(state_->head() == core::kMeanHead ? QStringLiteral("mean")
                                                           : QStringLiteral("H%1").arg(state_->head()));
    if (const auto r = controller_->current())
        name += QStringLiteral("-step%1").arg(r->step);
    return name;
}

QString ExportActions::askPath(const QString& title, const QString& suggested, const QString& filter) {
    const QString path = QFileDialog::getSaveFileName(
        window_, title, QDir(AppSettings::exportDir()).filePath(suggested), filter);
    if (!path.isEmpty())
        AppSettings::setExportDir(QFileInfo(path).absolutePath());
    return path;
}

void ExportActions::report(bool ok, const QString& path, const QString& error) {
    if (ok) {
        Q_EMIT message(tr("Saved %1").arg(QDir::toNativeSeparators(path)));
        return;
    }
    Q_EMIT message(tr("Export failed: %1").arg(error));
    QMessageBox::warning(window_, tr("Export failed"), tr("Nothing was written.\n\n%1").arg(error));
}

} // namespace ui
