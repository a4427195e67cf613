#include "ui/MainWindow.h"

#include "core/base/BlasCore.h"
#include "core/base/Errors.h"
#include "core/base/Runtime.h"
#include "core/model/Model.h"
#include "ui/AnalysisController.h"
#include "ui/AttentionPage.h"
#include "ui/CandidatesChart.h"
#include "ui/DecodePanel.h"
#include "ui/ExportActions.h"
#include "ui/HeadTable.h"
#include "ui/ModelLoader.h"
#include "ui/ModelPicker.h"
#include "ui/PositionalView.h"
#include "ui/QCustomPlotInclude.h"
#include "ui/TrainPage.h"
#include "ui/ViewState.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QCloseEvent>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QVBoxLayout>

namespace ui {

using core::AttentionKind;

MainWindow::MainWindow(const QString& modelsDir, QWidget* parent)
    : QMainWindow(parent), modelsDir_(modelsDir) {
    state_ = new ViewState(this);
    controller_ = new AnalysisController(this);
    loader_ = new ModelLoader(this);
    buildWidgets();
    exports_ = new ExportActions(this, state_, controller_, [this] { return tabs_->currentWidget(); });
    buildMenus();
    wire();
    setAcceptDrops(true);
    setWindowTitle(tr("attnscope"));
    resize(1400, 900);
}

MainWindow::~MainWindow() = default;

void MainWindow::buildWidgets() {
    auto* central = new QWidget(this);
    auto* col = new QVBoxLayout(central);

    picker_ = new ModelPicker(central);
    picker_->setBuiltinDirectory(modelsDir_);
    source_ = new QLineEdit(central);
    source_->setObjectName(QStringLiteral("sourceEdit"));
    source_->setPlaceholderText(tr("Type a sentence…"));
    source_->setClearButtonEnabled(true);
    source_->setToolTip(tr("The source text (the prompt, for a decoder-only model). The analysis re-runs as "
                           "you type; Enter decodes it to the end. Ctrl+L focuses this field."));
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Model"), central));
    top->addWidget(picker_);
    top->addSpacing(8);
    top->addWidget(new QLabel(tr("Source"), central));
    top->addWidget(source_, 1);
    col->addLayout(top);
    message_ = new QLabel(central);
    message_->setObjectName(QStringLiteral("messageLabel"));
    message_->setTextFormat(Qt::PlainText);
    message_->setWordWrap(true);
    message_->setVisible(false);
    message_->setStyleSheet(QStringLiteral("color: #b03a2e;"));
    col->addWidget(message_);

    tabs_ = new QTabWidget(central);
    tabs_->setObjectName(QStringLiteral("pages"));
    attention_ = new AttentionPage(state_, tabs_);
    tabs_->addTab(attention_, tr("&Attention"));
    positional_ = new PositionalView(tabs_);
    positional_->setObjectName(QStringLiteral("positionalView"));
    tabs_->addTab(positional_, tr("&Positional encodings"));
    train_ = new TrainPage(QDir(modelsDir_).filePath(QStringLiteral("../recipes")), tabs_);
    train_->setObjectName(QStringLiteral("trainPage"));
    tabs_->addTab(train_, tr("&Train"));
    heads_ = new HeadTable(tabs_);
    heads_->setObjectName(QStringLiteral("headTable"));
    tabs_->addTab(heads_, tr("&Heads"));
    tabs_->setTabToolTip(3, tr("Every decoder self-attention head scored on random tokens given twice: "
                               "induction, previous-token, first-token, entropy, distance (Alt+4)"));
    tabs_->setTabToolTip(2, tr("Train a small model on a task and watch its attention form (Alt+3)"));
    tabs_->setTabToolTip(0, tr("Every layer and head of the chosen attention, one head in detail, and "
                               "decoding step by step (Alt+1)"));
    tabs_->setTabToolTip(1, tr("The model's positional encodings: table, curves, similarity and rotation "
                               "(Alt+2)"));
    col->addWidget(tabs_, 1);
    setCentralWidget(central);

    timing_ = new QLabel(this);
    timing_->setToolTip(tr("Wall time of the last encoder pass and decoder step"));
    busy_ = new QLabel(tr("computing…"), this);
    busy_->setObjectName(QStringLiteral("busyLabel"));
    busy_->setVisible(false);
    statusBar()->addPermanentWidget(busy_);
    statusBar()->addPermanentWidget(timing_);
}

void MainWindow::buildMenus() {
    auto* file = menuBar()->addMenu(tr("&File"));
    auto* open = file->addAction(tr("Open Model &Folder…"), this, &MainWindow::openFolderDialog);
    open->setShortcut(QKeySequence::Open);
    open->setToolTip(tr("Open a model directory (config.json, model.safetensors, vocabulary)"));
    file->addSeparator();
    for (auto* a : exports_->actions())
        file->addAction(a);
    file->addSeparator();
    auto* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    auto* view = menuBar()->addMenu(tr("&View"));
    const std::pair<AttentionKind, QString> kinds[] = {
        {AttentionKind::Encoder, tr("&Encoder Self-Attention")},
        {AttentionKind::Decoder, tr("&Decoder Self-Attention")},
        {AttentionKind::Cross, tr("&Cross-Attention")}};
    for (int i = 0; i < 3; ++i)
        view->addAction(kinds[i].second, this, [this, k = kinds[i].first] { attention_->selectKind(k); })
            ->setShortcut(QKeySequence(Qt::CTRL | (Qt::Key_1 + i)));
    view->addSeparator();
    view->addAction(tr("Per-head Colour &Scale"), attention_->perHeadCheck(), &QCheckBox::toggle)
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_K));
    view->addAction(tr("&Logarithmic Colour Scale"), attention_->logScaleCheck(), &QCheckBox::toggle)
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_K));
    view->addAction(tr("Edit &Source"), this,
                    [this] {
                        source_->setFocus();
                        source_->selectAll();
                    })
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
    view->addSeparator();
    view->addAction(tr("&Attention"), this, [this] { showPage(Page::Attention); })
        ->setShortcut(QKeySequence(Qt::ALT | Qt::Key_1));
    view->addAction(tr("&Positional Encodings"), this, [this] { showPage(Page::Positional); })
        ->setShortcut(QKeySequence(Qt::ALT | Qt::Key_2));
    view->addAction(tr("&Train"), this, [this] { showPage(Page::Train); })
        ->setShortcut(QKeySequence(Qt::ALT | Qt::Key_3));
    view->addAction(tr("&Heads"), this, [this] { showPage(Page::Heads); })
        ->setShortcut(QKeySequence(Qt::ALT | Qt::Key_4));

    auto* decode = menuBar()->addMenu(tr("&Decode"));
    const auto* panel = attention_->decodePanel();
    for (auto* a : {panel->stepAction(), panel->backAction(), panel->runAction(), panel->resetAction()}) {
        decode->addAction(a);
        addAction(a); // shortcuts work whichever page or widget has the focus
    }

    auto* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Keyboard Shortcuts"), this,
                    [this] { QMessageBox::information(this, tr("Keyboard shortcuts"), shortcutsText()); })
        ->setShortcut(QKeySequence::HelpContents);
    help->addAction(tr("&About attnscope"), this,
                    [this] { QMessageBox::about(this, tr("About attnscope"), aboutText()); });
}

void MainWindow::wire() {
    // Input → controller.
    auto* panel = attention_->decodePanel();
    connect(source_, &QLineEdit::textChanged, controller_, &AnalysisController::setText);
    // Enter in the source field translates the sentence: in a text field Ctrl+→ moves by words instead.
    connect(source_, &QLineEdit::returnPressed, controller_, &AnalysisController::runToEnd);
    connect(picker_, &ModelPicker::modelChosen, this, &MainWindow::openModelInBackground);
    connect(picker_, &ModelPicker::openFolderRequested, this, &MainWindow::openFolderDialog);
    connect(panel->stepAction(), &QAction::triggered, controller_, &AnalysisController::step);
    connect(panel->backAction(), &QAction::triggered, controller_, &AnalysisController::back);
    connect(panel->runAction(), &QAction::triggered, controller_, &AnalysisController::runToEnd);
    connect(panel->resetAction(), &QAction::triggered, controller_, &AnalysisController::reset);
    connect(panel, &DecodePanel::samplingChanged, controller_, &AnalysisController::setSampling);
    controller_->setSampling(panel->sampling());
    connect(attention_->candidates(), &CandidatesChart::forceRequested, controller_,
            [this](qint64 id) { controller_->force(id); });

    // Controller → pages and status.
    connect(controller_, &AnalysisController::resultChanged, this, &MainWindow::showResult);
    connect(controller_, &AnalysisController::failed, this, &MainWindow::showError);
    // Two sources of waiting, one indicator: the analysis and a model loading.
    auto updateBusy = [this] { busy_->setVisible(controller_->busy() || loader_->loading()); };
    connect(controller_, &AnalysisController::busyChanged, this, updateBusy);
    connect(loader_, &ModelLoader::loadingChanged, this, updateBusy);
    connect(loader_, &ModelLoader::loaded, this, &MainWindow::applyModel);
    connect(loader_, &ModelLoader::failed, this, [this](const QString& dir, const QString& error) {
        refuseModel(dir, error);
        QMessageBox::warning(this, tr("Cannot open model"), lastError_);
    });
    connect(exports_, &ExportActions::message, this,
            [this](const QString& t) { statusBar()->showMessage(t, 8000); });
    connect(controller_, &AnalysisController::cleared, this, [this] {
        clearError();
        attention_->clear();
        exports_->updateEnabled();
    });
    connect(train_, &TrainPage::message, this,
            [this](const QString& t) { statusBar()->showMessage(t, 8000); });
    connect(attention_, &AttentionPage::hint, this,
            [this](const QString& t) { statusBar()->showMessage(t, 3000); });
    connect(heads_, &HeadTable::scoresChanged, attention_, &AttentionPage::setHeadScores);
    connect(heads_, &HeadTable::headActivated, this, [this](int layer, int head) {
        attention_->selectKind(AttentionKind::Decoder);
        state_->setSelection(layer, head);
        showPage(Page::Attention);
    });

    // View state → what is remembered and what depends on the kind.
    connect(state_, &ViewState::kindChanged, exports_, &ExportActions::updateEnabled);
    connect(state_, &ViewState::scaleModeChanged, this, [](ScaleMode m) {
        QSettings().setValue(QStringLiteral("view/perHeadScale"), m == ScaleMode::PerHead);
        QSettings().setValue(QStringLiteral("view/logScale"), m == ScaleMode::Log);
    });
    connect(state_, &ViewState::colorMapChanged, this, [this](const ColorMap& m) {
        positional_->setColorMap(m);
        QSettings().setValue(QStringLiteral("view/colorMap"), m.name());
    });
}

bool MainWindow::openModel(const QString& dir) {
    QString error;
    QApplication::setOverrideCursor(Qt::WaitCursor);
    auto model = loader_->loadNow(dir, &error);
    QApplication::restoreOverrideCursor();
    if (!model) {
        refuseModel(dir, error);
        return false;
    }
    applyModel(dir, std::move(model));
    return true;
}

void MainWindow::openModelInBackground(const QString& dir) {
    statusBar()->showMessage(tr("Loading %1…").arg(QDir::toNativeSeparators(QDir(dir).absolutePath())));
    loader_->load(dir);
}

void MainWindow::refuseModel(const QString& dir, const QString& error) {
    Q_UNUSED(dir);
    showError(tr("Cannot open model: %1").arg(error));
    picker_->setCurrentModel(model_ ? QString::fromStdString(model_->directory()) : QString());
    Q_EMIT modelLoadFinished(false);
}

void MainWindow::applyModel(const QString& dir, std::shared_ptr<const core::Model> model) {
    model_ = std::move(model);
    clearError();
    picker_->setCurrentModel(dir);
    QSettings().setValue(QStringLiteral("model/last"), QDir(dir).absolutePath());
    const auto& c = model_->config();
    setWindowTitle(tr("attnscope — %1").arg(QString::fromStdString(c.name)));
    source_->setPlaceholderText(c.hasEncoder() ? tr("Type a sentence…") : tr("Type a prompt…"));
    attention_->setModelKinds(
        c.hasEncoder()
            ? std::vector<AttentionKind>{AttentionKind::Encoder, AttentionKind::Decoder, AttentionKind::Cross}
            : std::vector<AttentionKind>{AttentionKind::Decoder});
    positional_->setModel(model_);
    heads_->setModel(model_);
    controller_->setModel(model_);
    // Built-in models are named as such; a folder of the user's is shown with its path.
    const QString where =
        !modelsDir_.isEmpty() && QFileInfo(dir).canonicalPath() == QFileInfo(modelsDir_).canonicalFilePath()
            ? tr("built-in")
            : QDir::toNativeSeparators(QDir(dir).absolutePath());
    statusBar()->showMessage(
        tr("Loaded %1 (%2 · %3 · %4 layers × %5 heads · on %6)")
            .arg(QString::fromStdString(c.name), where, QString::fromLatin1(core::toString(c.architecture)))
            .arg(c.hasEncoder() ? c.encoderLayers : c.decoderLayers)
            .arg(c.heads)
            .arg(QString::fromStdString(model_->deviceName())),
        8000);
    Q_EMIT modelLoadFinished(true);
}

void MainWindow::setSourceText(const QString& text) {
    source_->setText(text);
}

void MainWindow::showPage(Page page) {
    tabs_->setCurrentIndex(static_cast<int>(page)); // the tabs are in the enum's order
}

void MainWindow::showResult(const RunResultPtr& r) {
    clearError();
    attention_->showResult(r);
    exports_->updateEnabled();
    heads_->ensureScores(); // after the first result, so scoring never delays it
    const auto& snap = *r->snapshot;
    timing_->setText(
        snap.srcTokens.empty()
            ? tr("decode %1 ms").arg(snap.decodeMs, 0, 'f', 1)
            : tr("encode %1 ms · decode %2 ms").arg(snap.encodeMs, 0, 'f', 1).arg(snap.decodeMs, 0, 'f', 1));
    int unknown = 0;
    for (const auto* side : {&snap.srcTokens, &snap.tgtTokens})
        for (const auto& t : *side)
            unknown += t.unknown ? 1 : 0;
    if (unknown > 0)
        statusBar()->showMessage(tr("%n piece(s) of the text are not in the model's vocabulary (marked); the "
                                    "model sees <unk> there",
                                    nullptr, unknown),
                                 5000);
}

void MainWindow::showError(const QString& message) {
    lastError_ = message;
    message_->setText(QStringLiteral("⚠ ") + message);
    message_->setVisible(true);
    statusBar()->showMessage(message, 8000);
}

void MainWindow::clearError() {
    lastError_.clear();
    message_->setVisible(false);
}

void MainWindow::openFolderDialog() {
    const QString start = model_ ? QString::fromStdString(model_->directory()) : modelsDir_;
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Open Model Folder"), start);
    if (!dir.isEmpty())
        openModelInBackground(dir);
}

QString MainWindow::shortcutsText() {
    const std::pair<const char*, const char*> rows[] = {
        {"← →", "previous / next head (grid or heatmap focused; the mean comes last)"},
        {"↑ ↓, PgUp PgDn", "previous / next layer (grid or heatmap focused)"},
        {"Ctrl+→, Ctrl+←", "Step, Back"},
        {"Ctrl+End, Ctrl+Home", "Run to end, Reset"},
        {"Ctrl+1, Ctrl+2, Ctrl+3", "encoder self, decoder self, cross-attention"},
        {"Ctrl+K", "per-head colour scale"},
        {"Ctrl+Shift+K", "logarithmic colour scale"},
        {"Ctrl+L", "edit the source text"},
        {"Enter (in the source field)", "decode to the end"},
        {"Alt+1 … Alt+4", "Attention, Positional encodings, Train, Heads"},
        {"Ctrl+O", "open a model folder"},
        {"Ctrl+E, Ctrl+Shift+E", "export the page as a picture, every head as JSON"},
        {"Click, Shift+click a token", "mark its row, its column in the heatmap"},
    };
    QString html = QStringLiteral("<table cellspacing=\"4\">");
    for (const auto& [keys, what] : rows)
        html += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(tr(keys), tr(what));
    return html + QStringLiteral("</table>");
}

QString MainWindow::aboutText() {
    const auto blas = core::blasCoreName();
    return tr("<h3>attnscope %1</h3><p>Look inside Transformers: every layer, every head, step by step.</p>"
              "<p>Qt %2 · LibTorch %3 · QCustomPlot %4<br>%5 intra-op threads · %6</p>")
        .arg(QApplication::applicationVersion(), QString::fromLatin1(qVersion()),
             QString::fromStdString(core::torchVersion()), QString::fromLatin1(QCUSTOMPLOT_VERSION_STR))
        .arg(core::threadCount())
        .arg(blas.empty() ? tr("BLAS: not OpenBLAS")
                          : tr("OpenBLAS kernels: %1").arg(QString::fromStdString(blas)));
}

void MainWindow::restoreSettings() {
    QSettings s;
    state_->setColorMap(s.value(QStringLiteral("view/colorMap"), ColorMap::names().front()).toString());
    state_->setScaleMode(s.value(QStringLiteral("view/perHeadScale"), false).toBool() ? ScaleMode::PerHead
                         : s.value(QStringLiteral("view/logScale"), false).toBool()   ? ScaleMode::Log
                                                                                      : ScaleMode::Fixed);
    restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(s.value(QStringLiteral("window/state")).toByteArray());
    attention_->splitter()->restoreState(s.value(QStringLiteral("window/splitter")).toByteArray());
}

void MainWindow::restoreSourceText(const QString& fallback) {
    setSourceText(QSettings().value(QStringLiteral("source/text"), fallback).toString());
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (train_->training()) {
        // Minutes of training are worth a question before they are dropped.
        const auto answer = QMessageBox::question(
            this, tr("Training is running"), tr("Save the training run before closing?"),
            QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
        if (answer == QMessageBox::Cancel) {
            event->ignore();
            return;
        }
        if (answer == QMessageBox::Save) {
            QString error;
            if (!train_->save(&error)) {
                QMessageBox::warning(this, tr("Could not save"), error);
                event->ignore();
                return;
            }
        }
        train_->stop();
    }
    QSettings s;
    s.setValue(QStringLiteral("window/geometry"), saveGeometry());
    s.setValue(QStringLiteral("window/state"), saveState());
    s.setValue(QStringLiteral("window/splitter"), attention_->splitter()->saveState());
    s.setValue(QStringLiteral("source/text"), source_->text());
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    const auto urls = event->mimeData()->urls();
    if (urls.size() == 1 && urls.front().isLocalFile() && QFileInfo(urls.front().toLocalFile()).isDir())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    const QString dir = event->mimeData()->urls().front().toLocalFile();
    event->acceptProposedAction();
    openModelInBackground(dir);
}

} // namespace ui
