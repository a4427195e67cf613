#include "ui/MainWindow.h"

#include "core/Errors.h"
#include "core/Model.h"
#include "core/Runtime.h"
#include "ui/AnalysisController.h"
#include "ui/AttentionGrid.h"
#include "ui/CandidatesChart.h"
#include "ui/DecodePanel.h"
#include "ui/ExportActions.h"
#include "ui/HeatmapView.h"
#include "ui/ModelPicker.h"
#include "ui/PositionalView.h"
#include "ui/QCustomPlotInclude.h"
#include "ui/TokenStrip.h"
#include "ui/ViewState.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QCloseEvent>
#include <QComboBox>
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
#include <QSignalBlocker>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QVBoxLayout>

namespace ui {

using core::AttentionKind;

namespace {

QString kindLabel(AttentionKind k) {
    switch (k) {
    case AttentionKind::Encoder:
        return QObject::tr("Encoder self-attention");
    case AttentionKind::Decoder:
        return QObject::tr("Decoder self-attention (masked)");
    case AttentionKind::Cross:
        return QObject::tr("Cross-attention");
    }
    return {};
}

} // namespace

MainWindow::MainWindow(const QString& modelsDir, QWidget* parent)
    : QMainWindow(parent), modelsDir_(modelsDir) {
    state_ = new ViewState(this);
    controller_ = new AnalysisController(this);
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
                           "you type. Ctrl+L focuses this field."));
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
    col->addWidget(tabs_, 1);

    // The attention page.
    auto* page = new QWidget(tabs_);
    page->setObjectName(QStringLiteral("attentionPage"));
    auto* pcol = new QVBoxLayout(page);
    auto* controls = new QHBoxLayout;
    kind_ = new QComboBox(page);
    kind_->setObjectName(QStringLiteral("kindCombo"));
    kind_->setToolTip(tr("Which attention to show: the encoder's over the source, the decoder's masked "
                         "attention over the target so far, or the decoder's attention to the source "
                         "(Ctrl+1, Ctrl+2, Ctrl+3)"));
    colorMap_ = new QComboBox(page);
    colorMap_->setObjectName(QStringLiteral("colorMapCombo"));
    colorMap_->addItems(ColorMap::names());
    colorMap_->setToolTip(tr("Colour map; viridis and magma are perceptually uniform"));
    perHead_ = new QCheckBox(tr("Per-head scale"), page);
    perHead_->setObjectName(QStringLiteral("perHeadCheck"));
    perHead_->setToolTip(tr("Off: every head on the same [0, 1] scale, so heads compare. On: each head "
                            "stretched to its own range, so faint structure shows (Ctrl+K)"));
    controls->addWidget(kind_);
    controls->addSpacing(8);
    controls->addWidget(new QLabel(tr("Colours"), page));
    controls->addWidget(colorMap_);
    controls->addWidget(perHead_);
    controls->addStretch(1);
    pcol->addLayout(controls);

    decode_ = new DecodePanel(page);
    pcol->addWidget(decode_);
    srcStrip_ = new TokenStrip(tr("source"), page);
    srcStrip_->setObjectName(QStringLiteral("sourceStrip"));
    srcStrip_->setEmptyText(tr("(type a sentence above)"));
    srcStrip_->setToolTip(
        tr("The source as the model reads it. Unknown characters are marked, not dropped."));
    tgtStrip_ = new TokenStrip(tr("target"), page);
    tgtStrip_->setObjectName(QStringLiteral("targetStrip"));
    tgtStrip_->setToolTip(tr("The decoder's input: <bos> and the tokens decoded so far; the outlined one "
                             "is being fed now and produces the next token."));
    pcol->addWidget(srcStrip_);
    pcol->addWidget(tgtStrip_);

    splitter_ = new QSplitter(Qt::Horizontal, page);
    splitter_->setObjectName(QStringLiteral("mainSplitter"));
    grid_ = new AttentionGrid(splitter_);
    grid_->setObjectName(QStringLiteral("attentionGrid"));
    heatmap_ = new HeatmapView(splitter_);
    heatmap_->setObjectName(QStringLiteral("heatmapView"));
    candidates_ = new CandidatesChart(splitter_);
    candidates_->setObjectName(QStringLiteral("candidatesChart"));
    splitter_->addWidget(grid_);
    splitter_->addWidget(heatmap_);
    splitter_->addWidget(candidates_);
    splitter_->setStretchFactor(0, 3);
    splitter_->setStretchFactor(1, 4);
    splitter_->setStretchFactor(2, 2);
    candidates_->setMinimumWidth(200);
    splitter_->setSizes({520, 640, 280});
    pcol->addWidget(splitter_, 1);
    tabs_->addTab(page, tr("&Attention"));

    positional_ = new PositionalView(tabs_);
    positional_->setObjectName(QStringLiteral("positionalView"));
    tabs_->addTab(positional_, tr("&Positional encodings"));
    tabs_->setTabToolTip(0, tr("Every layer and head of the chosen attention, one head in detail, and "
                               "decoding step by step"));
    tabs_->setTabToolTip(1, tr("The model's positional encodings: table, curves, similarity and rotation"));

    setCentralWidget(central);
    timing_ = new QLabel(this);
    timing_->setToolTip(tr("Wall time of the last encoder pass and decoder step"));
    busy_ = new QLabel(tr("computing…"), this);
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
    const AttentionKind kinds[] = {AttentionKind::Encoder, AttentionKind::Decoder, AttentionKind::Cross};
    for (int i = 0; i < 3; ++i) {
        auto* a = view->addAction(kindLabel(kinds[i]), this, [this, k = kinds[i]] {
            const int idx = kind_->findData(static_cast<int>(k));
            if (idx >= 0)
                kind_->setCurrentIndex(idx);
        });
        a->setShortcut(QKeySequence(Qt::CTRL | (Qt::Key_1 + i)));
    }
    view->addSeparator();
    auto* scale = view->addAction(tr("Per-head Colour &Scale"), perHead_, &QCheckBox::toggle);
    scale->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_K));
    auto* focus = view->addAction(tr("Edit &Source"), this, [this] {
        source_->setFocus();
        source_->selectAll();
    });
    focus->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
    view->addAction(tr("&Attention"), this, [this] { showPage(Page::Attention); })
        ->setShortcut(QKeySequence(Qt::ALT | Qt::Key_1));
    view->addAction(tr("&Positional Encodings"), this, [this] { showPage(Page::Positional); })
        ->setShortcut(QKeySequence(Qt::ALT | Qt::Key_2));

    auto* decode = menuBar()->addMenu(tr("&Decode"));
    for (auto* a :
         {decode_->stepAction(), decode_->backAction(), decode_->runAction(), decode_->resetAction()}) {
        decode->addAction(a);
        addAction(a); // shortcuts work wherever the focus is
    }

    auto* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About attnscope"), this, &MainWindow::about);
}

void MainWindow::wire() {
    // Input → controller.
    connect(source_, &QLineEdit::textChanged, controller_, &AnalysisController::setText);
    connect(picker_, &ModelPicker::modelChosen, this, [this](const QString& dir) {
        if (!openModel(dir))
            QMessageBox::warning(this, tr("Cannot open model"), lastError_);
    });
    connect(picker_, &ModelPicker::openFolderRequested, this, &MainWindow::openFolderDialog);
    connect(decode_->stepAction(), &QAction::triggered, controller_, &AnalysisController::step);
    connect(decode_->backAction(), &QAction::triggered, controller_, &AnalysisController::back);
    connect(decode_->runAction(), &QAction::triggered, controller_, &AnalysisController::runToEnd);
    connect(decode_->resetAction(), &QAction::triggered, controller_, &AnalysisController::reset);
    connect(decode_, &DecodePanel::samplingChanged, controller_, &AnalysisController::setSampling);
    controller_->setSampling(decode_->sampling());
    connect(candidates_, &CandidatesChart::forceRequested, controller_,
            [this](qint64 id) { controller_->force(id); });

    // Controller → views.
    connect(controller_, &AnalysisController::resultChanged, this, &MainWindow::showResult);
    connect(controller_, &AnalysisController::failed, this, &MainWindow::showError);
    connect(controller_, &AnalysisController::busyChanged, busy_, &QWidget::setVisible);
    connect(controller_, &AnalysisController::cleared, this, [this] {
        message_->setVisible(false);
        lastError_.clear();
        grid_->setSnapshot(nullptr);
        heatmap_->setSnapshot(nullptr);
        srcStrip_->setTokens({});
        tgtStrip_->setTokens({});
        candidates_->setCandidates({}, false);
        decode_->setState(0, false, false, QString());
        exports_->updateEnabled();
    });

    // Controls → view state.
    connect(kind_, qOverload<int>(&QComboBox::currentIndexChanged), this, [this](int i) {
        if (i >= 0)
            state_->setKind(static_cast<AttentionKind>(kind_->itemData(i).toInt()));
    });
    connect(colorMap_, &QComboBox::currentTextChanged, state_, &ViewState::setColorMap);
    connect(perHead_, &QCheckBox::toggled, state_,
            [this](bool on) { state_->setScaleMode(on ? ScaleMode::PerHead : ScaleMode::Fixed); });
    connect(grid_, &AttentionGrid::tileClicked, state_, &ViewState::setSelection);
    connect(grid_, &AttentionGrid::navigate, state_, &ViewState::navigate);
    connect(heatmap_, &HeatmapView::navigate, state_, &ViewState::navigate);
    connect(srcStrip_, &TokenStrip::tokenClicked, this, [this](int i, Qt::KeyboardModifiers m) {
        if (!state_->markFromStrip(true, i, m & Qt::ShiftModifier))
            statusBar()->showMessage(tr("Source tokens play no part in decoder self-attention"), 3000);
    });
    connect(tgtStrip_, &TokenStrip::tokenClicked, this, [this](int i, Qt::KeyboardModifiers m) {
        if (!state_->markFromStrip(false, i, m & Qt::ShiftModifier))
            statusBar()->showMessage(tr("Target tokens play no part in encoder self-attention"), 3000);
    });

    // View state → views: each view hears only what it draws.
    connect(state_, &ViewState::kindChanged, this, [this](AttentionKind k) {
        const int idx = kind_->findData(static_cast<int>(k));
        if (idx >= 0 && idx != kind_->currentIndex()) {
            const QSignalBlocker block(kind_);
            kind_->setCurrentIndex(idx);
        }
        grid_->setKind(k);
        heatmap_->setKind(k);
        if (const auto r = controller_->current()) {
            const auto& b = r->snapshot->block(k);
            state_->setShape(b.layers, b.heads);
        }
        updateCurrentQuery();
        updateStrips();
        exports_->updateEnabled();
    });
    connect(state_, &ViewState::selectionChanged, this, [this](int l, int h) {
        grid_->setSelection(l, h);
        heatmap_->setSelection(l, h);
    });
    connect(state_, &ViewState::scaleModeChanged, this, [this](ScaleMode m) {
        grid_->setScaleMode(m);
        heatmap_->setScaleMode(m);
        QSettings().setValue(QStringLiteral("view/perHeadScale"), m == ScaleMode::PerHead);
    });
    connect(state_, &ViewState::colorMapChanged, this, [this](const ColorMap& m) {
        grid_->setColorMap(m);
        heatmap_->setColorMap(m);
        positional_->setColorMap(m);
        QSettings().setValue(QStringLiteral("view/colorMap"), m.name());
    });
    connect(state_, &ViewState::markedTokenChanged, this, [this](Qt::Orientation o, int i) {
        heatmap_->setMarkedToken(o, i);
        updateStrips();
    });
}

bool MainWindow::openModel(const QString& dir) {
    std::shared_ptr<const core::Model> model;
    QApplication::setOverrideCursor(Qt::WaitCursor);
    try {
        model = core::Model::load(QDir(dir).absolutePath().toStdString());
    } catch (const core::Error& e) {
        QApplication::restoreOverrideCursor();
        showError(tr("Cannot open model: %1").arg(QString::fromStdString(e.what())));
        picker_->setCurrentModel(model_ ? QString::fromStdString(model_->directory()) : QString());
        return false;
    }
    QApplication::restoreOverrideCursor();
    model_ = std::move(model);
    message_->setVisible(false);
    lastError_.clear();
    picker_->setCurrentModel(dir);
    QSettings().setValue(QStringLiteral("model/last"), QDir(dir).absolutePath());
    const auto& c = model_->config();
    setWindowTitle(tr("attnscope — %1").arg(QString::fromStdString(c.name)));
    source_->setPlaceholderText(c.hasEncoder() ? tr("Type a sentence…") : tr("Type a prompt…"));
    updateKinds();
    positional_->setModel(model_);
    controller_->setModel(model_);
    statusBar()->showMessage(tr("Loaded %1 (%2 · %3 · %4 layers × %5 heads · on %6)")
                                 .arg(QString::fromStdString(c.name), QDir::toNativeSeparators(dir),
                                      QString::fromLatin1(core::toString(c.architecture)))
                                 .arg(c.hasEncoder() ? c.encoderLayers : c.decoderLayers)
                                 .arg(c.heads)
                                 .arg(QString::fromStdString(model_->deviceName())),
                             8000);
    return true;
}

void MainWindow::setSourceText(const QString& text) {
    source_->setText(text);
}

void MainWindow::showPage(Page page) {
    tabs_->setCurrentIndex(page == Page::Attention ? 0 : 1);
}

void MainWindow::updateKinds() {
    const auto current = state_->kind();
    kind_->blockSignals(true);
    kind_->clear();
    const bool enc = model_ && model_->config().hasEncoder();
    for (auto k : {AttentionKind::Encoder, AttentionKind::Decoder, AttentionKind::Cross})
        if (enc || k == AttentionKind::Decoder)
            kind_->addItem(kindLabel(k), static_cast<int>(k));
    int idx = kind_->findData(static_cast<int>(current));
    if (idx < 0)
        idx = 0;
    kind_->setCurrentIndex(idx);
    kind_->blockSignals(false);
    state_->setKind(static_cast<AttentionKind>(kind_->itemData(idx).toInt()));
}

void MainWindow::showResult(const RunResultPtr& r) {
    message_->setVisible(false);
    lastError_.clear();
    const auto& snap = r->snapshot;
    const auto& b = snap->block(state_->kind());
    state_->setShape(b.layers, b.heads);
    grid_->setSnapshot(snap);
    heatmap_->setSnapshot(snap);
    srcStrip_->setTokens(snap->srcTokens);
    tgtStrip_->setTokens(snap->tgtTokens);
    tgtStrip_->setCurrent(static_cast<int>(snap->tgtTokens.size()) - 1);
    if (!model_->config().hasEncoder())
        srcStrip_->setEmptyText(tr("(a decoder-only model has no source: the prompt is the target)"));
    updateCurrentQuery();
    updateStrips();
    candidates_->setCandidates(r->top, r->finished);
    decode_->setState(r->step, r->finished, true, r->decodedText);
    exports_->updateEnabled();
    timing_->setText(
        tr("encode %1 ms · decode %2 ms").arg(snap->encodeMs, 0, 'f', 1).arg(snap->decodeMs, 0, 'f', 1));
    int unknown = 0;
    for (const auto* side : {&snap->srcTokens, &snap->tgtTokens})
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

void MainWindow::updateCurrentQuery() {
    const auto r = controller_->current();
    const int q = (r && state_->kind() != AttentionKind::Encoder)
                      ? static_cast<int>(r->snapshot->tgtTokens.size()) - 1
                      : -1;
    grid_->setHighlightedQuery(q);
    heatmap_->setCurrentQuery(q);
}

void MainWindow::updateStrips() {
    srcStrip_->setMarked(state_->markedOnStrip(true));
    tgtStrip_->setMarked(state_->markedOnStrip(false));
}

void MainWindow::openFolderDialog() {
    const QString start = model_ ? QString::fromStdString(model_->directory()) : modelsDir_;
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Open Model Folder"), start);
    if (!dir.isEmpty() && !openModel(dir))
        QMessageBox::warning(this, tr("Cannot open model"), lastError_);
}

QString MainWindow::aboutText() {
    return tr("<h3>attnscope %1</h3><p>Look inside Transformers: every layer, every head, step by step.</p>"
              "<p>Qt %2 · LibTorch %3 · QCustomPlot %4<br>%5 intra-op threads</p>")
        .arg(QApplication::applicationVersion(), QString::fromLatin1(qVersion()),
             QString::fromStdString(core::torchVersion()), QString::fromLatin1(QCUSTOMPLOT_VERSION_STR))
        .arg(core::threadCount());
}

void MainWindow::about() {
    QMessageBox::about(this, tr("About attnscope"), aboutText());
}

void MainWindow::restoreSettings() {
    QSettings s;
    colorMap_->setCurrentText(s.value(QStringLiteral("view/colorMap"), ColorMap::names().front()).toString());
    perHead_->setChecked(s.value(QStringLiteral("view/perHeadScale"), false).toBool());
    restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(s.value(QStringLiteral("window/state")).toByteArray());
    splitter_->restoreState(s.value(QStringLiteral("window/splitter")).toByteArray());
}

void MainWindow::closeEvent(QCloseEvent* event) {
    QSettings s;
    s.setValue(QStringLiteral("window/geometry"), saveGeometry());
    s.setValue(QStringLiteral("window/state"), saveState());
    s.setValue(QStringLiteral("window/splitter"), splitter_->saveState());
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
    if (!openModel(dir))
        QMessageBox::warning(this, tr("Cannot open model"), lastError_);
}

} // namespace ui
