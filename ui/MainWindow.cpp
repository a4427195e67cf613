#include "ui/MainWindow.h"

#include "core/analysis/LogitLens.h"
#include "core/model/Model.h"
#include "ui/attention/AttentionPage.h"
#include "ui/base/AppSettings.h"
#include "ui/base/ViewState.h"
#include "ui/export/ExportActions.h"
#include "ui/inside/InsideView.h"
#include "ui/lesson/LessonPanel.h"
#include "ui/lesson/LessonPlayer.h"
#include "ui/lesson/LessonRecorder.h"
#include "ui/positional/PositionalView.h"
#include "ui/research/AlignmentPage.h"
#include "ui/research/AttributionPanel.h"
#include "ui/research/HeadTable.h"
#include "ui/research/LensPage.h"
#include "ui/research/ResearchPages.h"
#include "ui/run/AnalysisController.h"
#include "ui/run/ModelOpener.h"
#include "ui/train/RunFolders.h"
#include "ui/train/TrainPage.h"
#include "ui/window/HelpText.h"
#include "ui/window/ModelPicker.h"
#include "ui/window/RecentMenu.h"
#include "ui/window/ShortcutPassThrough.h"
#include "ui/window/ShortcutsDialog.h"
#include "ui/window/ViewMenu.h"
#include "ui/window/WindowDriver.h"
#include "ui/window/WindowMessages.h"

#include <QAction>
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
#include <QSignalBlocker>
#include <QStatusBar>
#include <QTabWidget>
#include <QVBoxLayout>
#include <limits>

#include <algorithm>

namespace ui {

using core::AttentionKind;

MainWindow::MainWindow(const QString& modelsDir, QWidget* parent)
    : QMainWindow(parent), modelsDir_(modelsDir) {
    state_ = new ViewState(this);
    controller_ = new AnalysisController(state_, this);
    opener_ = new ModelOpener(modelsDir, this);
    buildWidgets();
    exports_ = new ExportActions(this, state_, controller_, [this] { return tabs_->currentWidget(); });
    // The shipped lessons sit beside the built-in models, as the recipes do.
    WindowParts parts;
    parts.owner = this;
    parts.opener = opener_;
    parts.controller = controller_;
    parts.state = state_;
    parts.attention = attention_;
    parts.inside = inside_;
    parts.positional = positional_;
    parts.heads = heads_;
    parts.train = train_;
    parts.compare = research_->compare();
    parts.sourceText = [this] { return sourceText(); };
    parts.setSourceText = [this](const QString& text) { setSourceText(text); };
    parts.currentPage = [this] { return currentPage(); };
    parts.showPage = [this](Page page) { showPage(page); };
    parts.lastError = [this] { return lastError(); };
    driver_ = new WindowDriver(std::move(parts));
    LessonWindow driven;
    driven.driver = driver_;
    driven.attention = attention_;
    driven.modelsDir = modelsDir_;
    auto* player = new LessonPlayer(std::move(driven));
    lessons_ = new LessonPanel(
        player, new LessonRecorder(player, driver_, modelsDir_),
        modelsDir_.isEmpty() ? QString() : QDir(modelsDir_).filePath(QStringLiteral("../lessons")), this);
    addDockWidget(Qt::RightDockWidgetArea, lessons_);
    buildMenus();
    wire();
    AppSettings::trackView(state_);
    AppSettings::trackSelection(state_);
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
    picker_->addFolders(AppSettings::recentModels()); // what File ▸ Open Recent lists
    picker_->addFolders(RunFolders::trainedModels(), &RunFolders::modelName);
    source_ = new QLineEdit(central);
    source_->setObjectName(QStringLiteral("sourceEdit"));
    source_->setPlaceholderText(tr("Type a sentence…"));
    source_->setClearButtonEnabled(true);
    // QLineEdit cuts a paste at 32,767 characters without a word; the model says how long a source may be.
    source_->setMaxLength(std::numeric_limits<int>::max());
    source_->setToolTip(HelpText::sourceToolTip(nullptr));
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Model"), central));
    top->addWidget(picker_);
    top->addSpacing(8);
    top->addWidget(new QLabel(tr("Source"), central));
    top->addWidget(source_, 1);
    col->addLayout(top);
    messages_ = new WindowMessages(central, statusBar(), this);
    col->addWidget(messages_->errorLine());

    tabs_ = new QTabWidget(central);
    tabs_->setObjectName(QStringLiteral("pages"));
    attention_ = new AttentionPage(state_, tabs_);
    tabs_->addTab(attention_, tr("&Attention"));
    positional_ = new PositionalView(tabs_);
    positional_->setObjectName(QStringLiteral("positionalView"));
    tabs_->addTab(positional_, tr("&Positional encodings"));
    // The recipes sit beside the built-in models; without those (data not found) there are none either.
    train_ = new TrainPage(
        modelsDir_.isEmpty() ? QString() : QDir(modelsDir_).filePath(QStringLiteral("../recipes")), tabs_);
    train_->setObjectName(QStringLiteral("trainPage"));
    tabs_->addTab(train_, tr("&Train"));
    heads_ = new HeadTable(tabs_);
    heads_->setObjectName(QStringLiteral("headTable"));
    tabs_->addTab(heads_, tr("&Heads"));
    inside_ = new InsideView(state_, tabs_);
    tabs_->addTab(inside_, tr("&Inside"));
    align_ = new AlignmentPage(tabs_);
    align_->setModelsDirectory(modelsDir_);
    tabs_->addTab(align_, tr("Side b&y side"));
    research_ = new ResearchPages(tabs_, state_, this);
    for (int i = 0; i < static_cast<int>(Page::Rollout); ++i) // the research pages say their own
        tabs_->setTabToolTip(i, HelpText::pageToolTip(Page(i)));
    col->addWidget(tabs_, 1);
    setCentralWidget(central);
}

void MainWindow::buildMenus() {
    auto* file = menuBar()->addMenu(tr("&File"));
    auto* open = file->addAction(tr("Open Model &Folder…"), this, &MainWindow::openFolderDialog);
    open->setShortcut(QKeySequence::Open);
    open->setToolTip(tr("Open a model directory (config.json, model.safetensors, vocabulary)"));
    auto* recent = new RecentMenu(file);
    file->addMenu(recent);
    connect(recent, &RecentMenu::folderChosen, this, &MainWindow::openInBackground);
    file->addAction(lessons_->openAction());
    file->addSeparator();
    for (auto* a : exports_->actions())
        file->addAction(a);
    file->addSeparator();
    auto* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    auto* view = new ViewMenu(
        attention_, state_, source_, tabs_, [this](int page) { showPage(Page(page)); }, this);
    menuBar()->addMenu(view);
    positionalAction_ = view->positionalAction();
    lessons_->setPresentation(view->presentation());
    view->addSeparator();
    for (auto* a : research_->actions()) {
        view->addAction(a);
        addAction(a); // their keys work whichever page or widget has the focus
    }

    auto* decode = menuBar()->addMenu(tr("&Decode"));
    for (auto* a : attention_->decodeActions()) {
        decode->addAction(a);
        addAction(a); // shortcuts work whichever page or widget has the focus
    }

    menuBar()->addMenu(lessons_->menu());

    auto* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Keyboard Shortcuts"), this,
                    [this] {
                        ShortcutsDialog dialog(HelpText::shortcuts(menuBar()), this);
                        dialog.exec();
                    })
        ->setShortcut(QKeySequence::HelpContents);
    help->addAction(tr("&About attnscope"), this,
                    [this] { QMessageBox::about(this, tr("About attnscope"), HelpText::about()); });
}

void MainWindow::wire() {
    // Input → controller.
    connect(source_, &QLineEdit::textChanged, controller_, &AnalysisController::setText);
    connect(source_, &QLineEdit::textChanged, align_, &AlignmentPage::setText);
    connect(source_, &QLineEdit::textChanged, attention_, [this](const QString& text) {
        if (!text.isEmpty())
            attention_->expectNewRun();
    });
    // Enter in the source field translates the sentence as typed; in the empty field it takes the example the
    // field offers (its analysis follows; decoding waits for the next Enter).
    connect(source_, &QLineEdit::returnPressed, controller_, &AnalysisController::runToEnd);
    connect(source_, &QLineEdit::returnPressed, this, [this] {
        if (source_->text().isEmpty() && model())
            source_->setText(HelpText::examplePrompt(model()->config()));
    });
    connect(picker_, &ModelPicker::modelChosen, this, &MainWindow::openInBackground);
    connect(picker_, &ModelPicker::openFolderRequested, this, &MainWindow::openFolderDialog);
    // The decoding and export keys work from the Source field too, where a user is after typing.
    QList<QKeySequence> windowKeys;
    for (auto* a : attention_->decodeActions() + exports_->actions() + research_->actions())
        windowKeys += a->shortcuts();
    new ShortcutPassThrough(source_, windowKeys);

    // The pages follow the analysis themselves, in this order: the Attention page first, since it puts
    // the snapshot into the view state the others read; the exports last, as they read the pages.
    attention_->attach(controller_);
    inside_->attach(controller_);
    research_->attach(controller_);
    exports_->attach();
    connect(controller_, &AnalysisController::resultChanged, heads_, [this] {
        heads_->ensureScores(); // after the first result, so scoring never delays it
    });
    connect(controller_, &AnalysisController::resultChanged, messages_, [this](const RunResultPtr& r) {
        messages_->clearError();
        messages_->showResult(*r->snapshot);
    });
    connect(controller_, &AnalysisController::cleared, messages_, &WindowMessages::clearResult);
    connect(controller_, &AnalysisController::samplingChanged, this, &AppSettings::setSampling);
    connect(controller_, &AnalysisController::failed, messages_, &WindowMessages::showError);
    connect(state_, &ViewState::headsOffRefused, messages_, &WindowMessages::showError);
    // Two sources of waiting, one indicator: the analysis and a model loading.
    auto updateBusy = [this] { messages_->setBusy(controller_->busy() || opener_->loading()); };
    connect(controller_, &AnalysisController::busyChanged, this, updateBusy);
    connect(opener_, &ModelOpener::loadingChanged, this, updateBusy);
    connect(opener_, &ModelOpener::opened, this, &MainWindow::applyModel);
    connect(
        opener_, &ModelOpener::refused, this,
        [this](const QString&, const QString& error, bool background) { refuseModel(error, background); });
    connect(exports_, &ExportActions::message, this,
            [this](const QString& t) { messages_->showMessage(t, 8000); });
    exports_->setInsideSource([this] { return inside_->shownInside(); });
    exports_->setLensSource(
        [this]() -> const core::LogitLens* {
            const auto& lens = research_->lens()->shown();
            return lens.points.empty() ? nullptr : &lens;
        },
        [this]() -> const core::Attribution* {
            const auto& a = research_->lens()->attribution()->shown();
            return a.components.empty() ? nullptr : &a;
        });
    exports_->setPlotSource([this](const QString& name) -> QCustomPlot* {
        if (name == QLatin1String("curves"))
            return positional_->showsExplanation() ? nullptr : positional_->curvePlot();
        return attention_->candidatesPlot();
    });
    connect(train_, &TrainPage::message, this, [this](const QString& t) { messages_->showMessage(t, 8000); });
    // A run that ends leaves a model (model/ in its folder): the Model list offers it.
    connect(train_, &TrainPage::trainingChanged, picker_, [this](bool training) {
        if (!training)
            picker_->addFolders(RunFolders::trainedModels(), &RunFolders::modelName);
    });
    connect(attention_, &AttentionPage::hint, this,
            [this](const QString& t) { messages_->showMessage(t, 3000); });
    connect(heads_, &HeadTable::scoresChanged, attention_, &AttentionPage::setHeadScores);
    connect(heads_, &HeadTable::headActivated, this, [this](int layer, int head) {
        // The head on the text its scores describe; the typed text would often be a 1×1 cell.
        QString whyNot;
        const auto measured = heads_->measuredOn(&whyNot);
        if (measured) {
            const QSignalBlocker quiet(source_); // the field shows R; the analysis runs on the ids
            source_->setText(measured->text);
            controller_->analyzeIds(measured->src, measured->tgt, measured->text);
            // Said with its result (a result clears the messages of the text before it).
            connect(
                controller_, &AnalysisController::resultChanged, this,
                [this, note = measured->description] { messages_->showStateMessage(note, 0); },
                Qt::SingleShotConnection);
        } else {
            messages_->showStateMessage(tr("Shown on the current text: %1.").arg(whyNot), 8000);
        }
        attention_->selectKind(AttentionKind::Decoder);
        state_->setSelection(layer, head);
        showPage(Page::Attention);
    });

    // A lens cell opens its layer (on the head shown now), an attribution head itself, the position's query
    // row marked.
    connect(research_->lens(), &LensPage::attentionChosen, this,
            [this](AttentionKind kind, int layer, int head, int position) {
                attention_->selectKind(kind);
                state_->setSelection(layer, head >= 0 ? head : state_->shown().head);
                state_->setMarkedToken(Qt::Horizontal, position);
                showPage(Page::Attention);
            });

    // View state → the pages that draw with its colour map but show no attention of the run.
    connect(state_, &ViewState::colorMapChanged, positional_, &PositionalView::setColorMap);
    connect(state_, &ViewState::colorMapChanged, align_, &AlignmentPage::setColorMap);
}

std::shared_ptr<const core::Model> MainWindow::model() const {
    return opener_->model();
}

QString MainWindow::lastError() const {
    return messages_->lastError();
}

void MainWindow::openInBackground(const QString& dir) {
    messages_->showMessage(tr("Loading %1…").arg(QDir::toNativeSeparators(QDir(dir).absolutePath())));
    opener_->openInBackground(dir);
}

void MainWindow::refuseModel(const QString& error, bool background) {
    messages_->showError(tr("Cannot open model: %1").arg(error));
    picker_->setCurrentModel(opener_->directory()); // the model still open
    if (background) // nobody waits on a return value: say it where it cannot be missed
        QMessageBox::warning(this, tr("Cannot open model"), messages_->lastError());
}

void MainWindow::applyModel(const QString& dir, const std::shared_ptr<const core::Model>& model) {
    messages_->clearError();
    picker_->setCurrentModel(dir);
    align_->setCurrentModel(dir);
    if (!opener_->isBuiltin(dir))
        AppSettings::addRecentModel(dir); // File ▸ Open Recent
    const auto& c = model->config();
    setWindowTitle(tr("attnscope — %1").arg(QString::fromStdString(c.name)));
    // A task model takes only its own alphabet ("321+54"): its config says what, and the field shows it.
    source_->setPlaceholderText(HelpText::sourcePlaceholder(c));
    source_->setToolTip(HelpText::sourceToolTip(&c));
    attention_->setModelKinds(core::transformerKinds(c.hasEncoder(), c.hasDecoder()));
    // A model without positions has nothing for that page to show; rotary keeps it (it explains rotary).
    const bool positions = c.positional != core::PositionalEncoding::None;
    tabs_->setTabVisible(static_cast<int>(Page::Positional), positions);
    positionalAction_->setEnabled(positions);
    positional_->setModel(model);
    // The Heads tab scores decoder self-attention heads, which the recurrent families and encoder-only
    // models do not have.
    const bool decoderHeads = !c.recurrent() && c.hasDecoder();
    tabs_->setTabVisible(static_cast<int>(Page::Heads), decoderHeads);
    heads_->setModel(decoderHeads ? model : nullptr);
    // A classifier, the GRU translator and an encoder without a masked-LM head have no output to read
    // their stream through.
    tabs_->setTabVisible(static_cast<int>(Page::Lens), core::whyNoLogitLens(c).empty());
    controller_->setModel(model);
    // Built-in models are named as such; a folder of the user's is shown with its path.
    const QString where =
        opener_->isBuiltin(dir) ? tr("built-in") : QDir::toNativeSeparators(QDir(dir).absolutePath());
    messages_->showMessage(tr("Loaded %1 (%2 · %3 · on %4)")
                               .arg(QString::fromStdString(c.name), where, QString::fromStdString(c.shape()),
                                    QString::fromStdString(model->deviceName())),
                           8000);
}

void MainWindow::setSourceText(const QString& text) {
    source_->setText(text);
}

void MainWindow::showPage(Page page) {
    const int index = static_cast<int>(page); // the tabs are in the enum's order
    if (tabs_->isTabVisible(index))
        tabs_->setCurrentIndex(index);
}

MainWindow::Page MainWindow::currentPage() const {
    return Page(tabs_->currentIndex());
}

void MainWindow::openFolderDialog() {
    const QString dir =
        QFileDialog::getExistingDirectory(this, tr("Open Model Folder"), opener_->dialogFolder());
    if (!dir.isEmpty())
        openInBackground(dir);
}

void MainWindow::restoreLayout() {
    AppSettings::restoreWindow(this);
    attention_->restorePaneLayout(AppSettings::paneLayout());
}

void MainWindow::restoreRemembered(const QString& fallback, const QString& text) {
    auto state = AppSettings::rememberedState();
    if (!text.isEmpty()) {
        state.text = text;
    } else {
        // The model's own example comes before the caller's: a task model cannot read an English sentence.
        const auto m = model();
        const auto example = m ? QString::fromStdString(m->config().example) : QString();
        state.text = AppSettings::sourceText(example.isEmpty() ? fallback : example);
    }
    WindowDriver::Options options;
    options.remembered = true;
    driver_->drive(std::move(state), options);
}

QString MainWindow::sourceText() const {
    return source_->text();
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (!train_->confirmClose(this) || !lessons_->confirmClose()) {
        event->ignore();
        return;
    }
    AppSettings::saveWindow(this, attention_->paneLayout());
    AppSettings::setSourceText(source_->text());
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
    openInBackground(dir);
}

} // namespace ui
