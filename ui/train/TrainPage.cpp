#include "ui/train/TrainPage.h"

#include "core/base/Errors.h"
#include "core/train/TrainRecipe.h"
#include "ui/base/AppSettings.h"
#include "ui/train/RunFolders.h"
#include "ui/train/TrainCurve.h"
#include "ui/train/TrainFrames.h"
#include "ui/train/TrainPresets.h"
#include "ui/train/TrainSession.h"

#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>
#include <QStyle>
#include <QStyleOptionComboBox>
#include <QVBoxLayout>

#include <algorithm>

namespace ui {

namespace {

// A box takes the row's spare room up to its longest entry, whole: past that the room stays empty.
void growToEntries(QComboBox* box) {
    int widest = 0;
    for (int i = 0; i < box->count(); ++i)
        widest = std::max(widest, box->fontMetrics().horizontalAdvance(box->itemText(i)));
    QStyleOptionComboBox option;
    option.initFrom(box);
    const QSize content(widest, box->fontMetrics().height());
    box->setMaximumWidth(box->style()->sizeFromContents(QStyle::CT_ComboBox, &option, content, box).width());
}

} // namespace

TrainPage::TrainPage(const QString& recipesDir, QWidget* parent) : QWidget(parent), recipesDir_(recipesDir) {
    session_ = new TrainSession(this); // before the frames, which draw its film
    task_ = new QComboBox(this);
    task_->setObjectName(QStringLiteral("trainTask"));
    TrainPresets::fill(task_, recipesDir_);
    size_ = new QComboBox(this);
    size_->setObjectName(QStringLiteral("trainSize"));
    size_->addItem(tr("classroom (2+2 layers, d_model 64)"), QStringLiteral("classroom"));
    size_->addItem(tr("tiny (1+1 layers, d_model 32)"), QStringLiteral("tiny"));
    size_->setToolTip(tr("Model size. Classroom is the built-in models' size: in the default 4,000 steps "
                         "reverse reaches 99% exact match in about 2 minutes on two cores"));
    steps_ = new QSpinBox(this);
    steps_->setObjectName(QStringLiteral("trainSteps"));
    steps_->setRange(10, 100000);
    steps_->setSingleStep(100);
    steps_->setValue(4000);
    steps_->setPrefix(tr("steps "));
    steps_->setToolTip(tr("Optimizer steps to train"));
    start_ = new QPushButton(tr("Start"), this);
    start_->setObjectName(QStringLiteral("trainStart"));
    start_->setToolTip(tr("Start a new training run"));
    continue_ = new QPushButton(tr("Continue Run…"), this);
    continue_->setObjectName(QStringLiteral("trainContinue"));
    continue_->setToolTip(tr("Continue a saved run from its last checkpoint: one stopped here, one whose "
                             "window closed or crashed, or one trained with attnscope train"));
    pause_ = new QPushButton(tr("Pause"), this);
    pause_->setObjectName(QStringLiteral("trainPause"));
    pause_->setToolTip(tr("Pause or resume between two steps"));
    stop_ = new QPushButton(tr("Stop"), this);
    stop_->setObjectName(QStringLiteral("trainStop"));
    stop_->setToolTip(tr("Stop the run (it is saved and can be opened as a model)"));
    status_ = new QLabel(tr("Pick a task and press Start."), this);
    status_->setObjectName(QStringLiteral("trainStatus"));
    status_->setTextFormat(Qt::PlainText);
    status_->setWordWrap(true); // a long run folder must not widen the window past the screen
    offer_ = new QFrame(this);
    offer_->setObjectName(QStringLiteral("trainOffer"));
    static_cast<QFrame*>(offer_)->setFrameShape(QFrame::StyledPanel);
    offerText_ = new QLabel(offer_);
    offerText_->setObjectName(QStringLiteral("trainOfferText"));
    offerText_->setTextFormat(Qt::PlainText);
    offerText_->setWordWrap(true);
    auto* continueIt = new QPushButton(tr("Continue &It"), offer_);
    continueIt->setObjectName(QStringLiteral("trainOfferContinue"));
    continueIt->setToolTip(tr("Go on from the run's last checkpoint to its end"));
    auto* dismiss = new QPushButton(tr("Dismiss"), offer_);
    dismiss->setObjectName(QStringLiteral("trainOfferDismiss"));
    dismiss->setToolTip(tr("Hide this; Continue Run… still finds the run"));
    auto* offerRow = new QHBoxLayout(offer_);
    offerRow->addWidget(offerText_, 1);
    offerRow->addWidget(continueIt);
    offerRow->addWidget(dismiss);
    connect(continueIt, &QPushButton::clicked, this, [this] { continueRun(offered_); });
    connect(dismiss, &QPushButton::clicked, offer_, &QWidget::hide);

    // The boxes' longest entries (a recipe's description) must not set the window's minimum past a
    // projector's width: they show what fits, and the list drops down whole.
    for (auto* box : {task_, size_}) {
        box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        box->setMinimumContentsLength(14);
        box->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
        growToEntries(box);
    }
    auto* controls = new QHBoxLayout;
    controls->addWidget(task_, 1);
    controls->addWidget(size_, 1);
    controls->addWidget(steps_);
    controls->addWidget(start_);
    controls->addWidget(continue_);
    controls->addWidget(pause_);
    controls->addWidget(stop_);
    controls->addStretch(0); // what the boxes leave

    curve_ = new TrainCurve(this);

    frames_ = new TrainFrames(session_->film(), this);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(curve_);
    split->addWidget(frames_);
    split->setSizes({600, 600});

    auto* col = new QVBoxLayout(this);
    col->addLayout(controls);
    col->addWidget(offer_);
    col->addWidget(status_);
    col->addWidget(split, 1);

    connect(task_, qOverload<int>(&QComboBox::currentIndexChanged), this, [this] { fitToTask(true); });
    connect(start_, &QPushButton::clicked, this, &TrainPage::start);
    connect(continue_, &QPushButton::clicked, this, &TrainPage::chooseRunToContinue);
    connect(pause_, &QPushButton::clicked, this, &TrainPage::togglePause);
    connect(stop_, &QPushButton::clicked, this, &TrainPage::stop);
    connect(session_, &TrainSession::started, this, [this](int64_t steps) {
        frames_->restart();
        curve_->clear(steps);
        const QSignalBlocker block(steps_);
        steps_->setValue(static_cast<int>(steps));
    });
    connect(session_, &TrainSession::progressed, this, [this](const TrainProgress& p) {
        curve_->add(p);
        status_->setText(TrainCurve::describe(p));
        Q_EMIT progressed();
    });
    connect(session_, &TrainSession::probed, this, [this] {
        frames_->frameAdded();
        Q_EMIT progressed();
    });
    connect(session_, &TrainSession::held, this, [this](int64_t step) {
        if (!paused())
            return; // resumed before the word came: it is training again
        status_->setText(tr("Paused after step %1").arg(step));
        Q_EMIT held(step);
    });
    connect(session_, &TrainSession::failed, this, &TrainPage::message);
    connect(session_, &TrainSession::finished, this, &TrainPage::onFinished);
    updateButtons();
    offerStoppedRun();
}

void TrainPage::offerStoppedRun() {
    const auto stopped = training() ? std::nullopt : RunFolders::stoppedRun(AppSettings::lastRun());
    offered_ = stopped ? stopped->dir : QString();
    offer_->setVisible(stopped.has_value());
    if (stopped)
        offerText_->setText(tr("The last run stopped at step %1 of %2, in %3.")
                                .arg(stopped->step)
                                .arg(stopped->steps)
                                .arg(QDir::toNativeSeparators(stopped->dir)));
}

QString TrainPage::offeredRun() const {
    return offer_->isHidden() ? QString() : offered_;
}

TrainPage::~TrainPage() {
    delete frames_; // it draws the session's film, which goes with the page's other children
}

void TrainPage::start() {
    QString error;
    if (!training() && !startRun(&error))
        Q_EMIT message(tr("Cannot train: %1").arg(error));
}

bool TrainPage::startRun(QString* error) {
    core::TrainRecipe recipe;
    try {
        recipe = TrainPresets::forRun(recipePath(), size_->currentData().toString() == QLatin1String("tiny"),
                                      steps_->value());
    } catch (const core::Error& e) {
        *error = QString::fromStdString(e.what());
        return false;
    }
    session_->start(recipe, task_->currentData().toString(),
                    size_->currentData().toString() == QLatin1String("tiny"));
    launched(
        recipe.model.recurrent()
            ? tr("Training %1 (%2)…").arg(task_->currentText(), QString::fromStdString(recipe.model.shape()))
            : tr("Training %1 (%2)…").arg(task_->currentText(), size_->currentText()));
    return true;
}

QString TrainPage::recipePath() const {
    return TrainPresets::recipePath(recipesDir_, task_->currentData().toString());
}

void TrainPage::fitToTask(bool takeSteps) {
    // A recurrent preset has its own size, and trains for its recipe's steps (a few minutes here); so does
    // the induction preset, whose head forms at a step of its own schedule.
    try {
        const auto recipe = core::TrainRecipe::fromFile(recipePath().toStdString());
        size_->setEnabled(!training() && !recipe.model.recurrent());
        size_->setItemText(0, tr("classroom (%1)").arg(TrainPresets::sizeLabel(recipe.model)));
        size_->setItemText(
            1,
            tr("tiny (%1)").arg(TrainPresets::sizeLabel(TrainPresets::forRun(recipePath(), true, 1).model)));
        growToEntries(size_);
        if (takeSteps && (recipe.model.recurrent() || recipe.task == core::TaskKind::Induction))
            steps_->setValue(static_cast<int>(recipe.steps));
    } catch (const core::Error&) {
        size_->setEnabled(!training()); // Start says what is wrong with the recipe
    }
}

void TrainPage::chooseRunToContinue() {
    const QString last = AppSettings::lastRun();
    const QString start = !last.isEmpty() ? last : runsFolder();
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Continue Run"), start);
    if (!dir.isEmpty())
        continueRun(dir);
}

void TrainPage::continueRun(const QString& dir) {
    if (training())
        return;
    core::TrainRecipe recipe;
    QString error;
    if (!session_->resume(dir, &recipe, &error)) {
        Q_EMIT message(tr("Cannot continue: %1").arg(error));
        return;
    }
    {
        const QSignalBlocker block(task_);
        // The preset the run was made from: its recipe's name, less what Start added.
        auto name = QString::fromStdString(recipe.name);
        name.remove(QRegularExpression(QStringLiteral("-trained$")));
        int task = task_->findData(name);
        if (task < 0)
            task = task_->findData(QString::fromStdString(core::Task::toString(recipe.task)));
        if (task >= 0)
            task_->setCurrentIndex(task);
    }
    launched(tr("Continuing %1…").arg(QDir::toNativeSeparators(dir)));
}

void TrainPage::launched(const QString& what) {
    offerStoppedRun(); // training now: nothing to offer
    status_->setText(what);
    updateButtons();
    Q_EMIT trainingChanged(true);
}

void TrainPage::togglePause() {
    session_->togglePause();
    if (training() && !paused())
        status_->setText(tr("Resuming…")); // not "Paused after step" until the next row says where it is
    updateButtons();
}

void TrainPage::stop() {
    session_->stop();
}

bool TrainPage::training() const {
    return session_->training();
}

bool TrainPage::paused() const {
    return session_->paused();
}

bool TrainPage::save(QString* error) {
    return session_->save(error);
}

bool TrainPage::confirmClose(QWidget* parent) {
    if (!training())
        return true;
    // Minutes of training are worth a question before the window goes. A stopped run saves itself on its
    // worker thread, so there is nothing to discard: the choice is to close once it is saved, or go on.
    QMessageBox box(QMessageBox::Question, tr("Training is running"),
                    tr("Closing stops the run. It is saved first (checkpoint and model) in %1, and can be "
                       "continued later with Continue Run….")
                        .arg(QDir::toNativeSeparators(session_->runDirectory())),
                    QMessageBox::Cancel, parent);
    auto* close = box.addButton(tr("Stop, Save and Close"), QMessageBox::AcceptRole);
    close->setObjectName(QStringLiteral("stopSaveClose"));
    box.setDefaultButton(close);
    box.exec();
    if (box.clickedButton() != close)
        return false;
    QString error;
    if (!save(&error)) {
        QMessageBox::warning(parent, tr("Could not save"), error);
        return false;
    }
    return true;
}

QString TrainPage::runPreset() const {
    return session_->runPreset();
}

bool TrainPage::runTiny() const {
    return session_->runTiny();
}

int64_t TrainPage::runSteps() const {
    return session_->runSteps();
}

int64_t TrainPage::lastStep() const {
    return session_->lastStep();
}

QString TrainPage::runDirectory() const {
    return session_->runDirectory();
}

QString TrainPage::runsFolder() const {
    return session_->runsFolder();
}

void TrainPage::setRunsFolder(const QString& dir) {
    session_->setRunsFolder(dir);
}

int TrainPage::frames() const {
    return session_->film().frames();
}

int64_t TrainPage::frameStep(int index) const {
    return session_->film().frameStep(index);
}

std::optional<TrainProgress> TrainPage::rowAt(int64_t step) const {
    return session_->film().rowAt(step);
}

int TrainPage::frameAtOrAfter(int64_t step) const {
    return session_->film().frameAtOrAfter(step);
}

int TrainPage::frameAtOrBefore(int64_t step) const {
    return session_->film().frameAtOrBefore(step);
}

void TrainPage::showFrame(int index) {
    frames_->showFrame(index);
}

void TrainPage::holdFrame(int index) {
    frames_->holdFrame(index);
}

int TrainPage::shownFrame() const {
    return frames_->shownFrame();
}

AttentionGrid* TrainPage::grid() const {
    return frames_->grid();
}

int TrainPage::lossPoints() const {
    return curve_->lossPoints();
}

bool TrainPage::startPreset(const QString& preset, bool tiny, int steps, QString* error) {
    const int index = task_->findData(preset);
    if (index < 0) {
        if (error)
            *error = tr("the Train tab has no preset \"%1\" (its recipe is not in %2)")
                         .arg(preset, QDir::toNativeSeparators(recipesDir_));
        return false;
    }
    if (training()) {
        if (error)
            *error = tr("a training run is going; stop it first");
        return false;
    }
    task_->setCurrentIndex(index);
    size_->setCurrentIndex(size_->findData(tiny ? QStringLiteral("tiny") : QStringLiteral("classroom")));
    if (steps <= 0) { // the recipe's own, whatever the box holds
        try {
            steps = static_cast<int>(core::TrainRecipe::fromFile(recipePath().toStdString()).steps);
        } catch (const core::Error& e) {
            if (error)
                *error = QString::fromStdString(e.what());
            return false;
        }
    }
    steps_->setValue(steps);
    QString why;
    if (!startRun(&why)) {
        if (error)
            *error = why;
        return false;
    }
    return true;
}

int64_t TrainPage::formedStep() const {
    return curve_->formedStep();
}

void TrainPage::onFinished(bool completed, const QString& error) {
    if (error.isEmpty()) {
        status_->setText(status_->text() + (completed ? tr(" · done") : tr(" · stopped")) +
                         tr(" · saved in %1").arg(QDir::toNativeSeparators(session_->runDirectory())));
        status_->setToolTip(tr("The run's folder: Continue Run… (or attnscope train --resume --out FOLDER) "
                               "goes on from its last checkpoint; its model/ opens as a model"));
    } else {
        status_->setText(tr("The run failed: %1").arg(error));
    }
    updateButtons();
    offerStoppedRun(); // a run stopped short of its end can go on
    Q_EMIT trainingChanged(false);
}

void TrainPage::updateButtons() {
    const bool on = training();
    start_->setEnabled(!on);
    continue_->setEnabled(!on);
    task_->setEnabled(!on);
    size_->setEnabled(!on);
    if (!on)
        fitToTask(false); // the steps a run was given stay in the box after it
    steps_->setEnabled(!on);
    pause_->setEnabled(on);
    stop_->setEnabled(on);
    pause_->setText(paused() ? tr("Resume") : tr("Pause"));
}

} // namespace ui
