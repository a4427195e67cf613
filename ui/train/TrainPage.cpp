#include "ui/train/TrainPage.h"

#include "core/base/Errors.h"
#include "core/train/TrainRecipe.h"
#include "core/train/Trainer.h"
#include "core/train/TrainingRun.h"
#include "ui/base/AppSettings.h"
#include "ui/train/TrainCurve.h"
#include "ui/train/TrainFrames.h"
#include "ui/train/TrainPresets.h"

#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardPaths>
#include <QVBoxLayout>

#include <algorithm>

namespace ui {

TrainPage::TrainPage(const QString& recipesDir, QWidget* parent) : QWidget(parent), recipesDir_(recipesDir) {
    qRegisterMetaType<TrainProgress>();
    qRegisterMetaType<std::shared_ptr<const core::AttentionSnapshot>>();
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

    auto* controls = new QHBoxLayout;
    controls->addWidget(task_);
    controls->addWidget(size_);
    controls->addWidget(steps_);
    controls->addWidget(start_);
    controls->addWidget(continue_);
    controls->addWidget(pause_);
    controls->addWidget(stop_);
    controls->addStretch(1);

    curve_ = new TrainCurve(this);

    frames_ = new TrainFrames(film_, this);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(curve_);
    split->addWidget(frames_);
    split->setSizes({600, 600});

    auto* col = new QVBoxLayout(this);
    col->addLayout(controls);
    col->addWidget(status_);
    col->addWidget(split, 1);

    connect(task_, qOverload<int>(&QComboBox::currentIndexChanged), this, [this] { fitToTask(true); });
    connect(start_, &QPushButton::clicked, this, &TrainPage::start);
    connect(continue_, &QPushButton::clicked, this, &TrainPage::chooseRunToContinue);
    connect(pause_, &QPushButton::clicked, this, &TrainPage::togglePause);
    connect(stop_, &QPushButton::clicked, this, &TrainPage::stop);
    run_ = new TrainingThread(this);
    connect(run_, &TrainingThread::progress, this, &TrainPage::onProgress);
    connect(run_, &TrainingThread::probed, this, &TrainPage::onProbed);
    connect(run_, &TrainingThread::failed, this, &TrainPage::message);
    connect(run_, &TrainingThread::finished, this, &TrainPage::onFinished);
    updateButtons();
}

TrainPage::~TrainPage() {
    run_->stopAndWait(); // before the page goes: the run saves itself as it stops
}

void TrainPage::start() {
    QString error;
    if (!training() && !startRun(&error))
        Q_EMIT message(tr("Cannot train: %1").arg(error));
}

QString TrainPage::runsFolder() const {
    return !runsFolder_.isEmpty() ? runsFolder_
                                  : QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation))
                                        .filePath(QStringLiteral("runs"));
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
    const QString base = QDir(runsFolder())
                             .filePath(QStringLiteral("%1-%2").arg(
                                 task_->currentData().toString(),
                                 QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-hhmmss"))));
    // Two runs started within a second get folders of their own.
    runDir_ = base;
    for (int n = 2; QFileInfo::exists(runDir_); ++n)
        runDir_ = base + QStringLiteral("-%1").arg(n);
    runPreset_ = task_->currentData().toString();
    runTiny_ = size_->currentData().toString() == QLatin1String("tiny");
    runSteps_ = recipe.steps;
    launch(
        new TrainingWorker(recipe, runDir_, TrainPresets::probeFor(recipe.task),
                           TrainPresets::probeEvery(recipe.steps)),
        recipe,
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
    if (!core::TrainingRun::hasCheckpoint(dir.toStdString())) {
        Q_EMIT message(tr("Cannot continue %1: it holds no checkpoint of a training run")
                           .arg(QDir::toNativeSeparators(dir)));
        return;
    }
    core::TrainRecipe recipe;
    try {
        recipe = core::Trainer::savedRecipe(
            dir.toStdString()); // the checkpoint's: a resume may have moved its end
    } catch (const core::Error& e) {
        Q_EMIT message(tr("Cannot continue: %1").arg(QString::fromStdString(e.what())));
        return;
    }
    runDir_ = dir;
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
    // To the run's own end; `attnscope train --resume --steps N` extends a run.
    runPreset_.clear();
    auto* worker = TrainingWorker::resuming(recipe, runDir_, TrainPresets::probeFor(recipe.task),
                                            TrainPresets::probeEvery(recipe.steps));
    launch(worker, recipe, tr("Continuing %1…").arg(QDir::toNativeSeparators(dir)));
}

void TrainPage::launch(TrainingWorker* worker, const core::TrainRecipe& recipe, const QString& what) {
    AppSettings::setLastRun(runDir_);
    film_.clear();
    frames_->restart();
    lastStep_ = 0;
    curve_->clear(recipe.steps);
    {
        const QSignalBlocker block(steps_);
        steps_->setValue(static_cast<int>(recipe.steps));
    }

    // The previous run has ended (training() is false): its thread and worker are freed as this one starts.
    running_ = true;
    run_->start(worker);
    status_->setText(what);
    updateButtons();
    Q_EMIT trainingChanged(true);
}

void TrainPage::togglePause() {
    auto* worker = run_->worker();
    if (!worker)
        return;
    if (worker->paused())
        worker->resume();
    else
        worker->pause();
    updateButtons();
}

void TrainPage::stop() {
    if (auto* worker = run_->worker())
        worker->stop();
}

bool TrainPage::training() const {
    return running_; // until the run's finished signal is handled, not only while its thread runs
}

bool TrainPage::paused() const {
    return run_->worker() && run_->worker()->paused();
}

bool TrainPage::save(QString* error) {
    const auto* worker = run_->worker();
    if (!worker)
        return true;
    // The run saves itself when it stops, on its own thread; wait for that.
    run_->stopAndWait();
    // The run's finished signal may still be queued; wind the run up here, and it will find nothing to do.
    if (running_)
        onFinished(worker->completed());
    if (!worker->error().isEmpty()) {
        if (error)
            *error = worker->error();
        return false;
    }
    return true;
}

bool TrainPage::confirmClose(QWidget* parent) {
    if (!training())
        return true;
    // Minutes of training are worth a question before the window goes. A stopped run saves itself on its
    // worker thread, so there is nothing to discard: the choice is to close once it is saved, or go on.
    QMessageBox box(QMessageBox::Question, tr("Training is running"),
                    tr("Closing stops the run. It is saved first (checkpoint and model) in %1, and can be "
                       "continued later with Continue Run….")
                        .arg(QDir::toNativeSeparators(runDir_)),
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

QString TrainPage::runDirectory() const {
    return runDir_;
}

int64_t TrainPage::frameStep(int index) const {
    return film_.frameStep(index);
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

void TrainPage::onProgress(const TrainProgress& p) {
    lastStep_ = p.step;
    film_.addRow(p);
    curve_->add(p);
    status_->setText(TrainCurve::describe(p));
    Q_EMIT progressed();
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

void TrainPage::onProbed(int64_t step, std::shared_ptr<const core::AttentionSnapshot> snap) {
    film_.addFrame(step, std::move(snap));
    frames_->frameAdded();
    Q_EMIT progressed();
}

void TrainPage::onFinished(bool completed) {
    run_->join();
    if (!running_)
        return; // save() has already wound this run up
    running_ = false;
    const auto error = run_->worker()->error();
    if (error.isEmpty()) {
        status_->setText(status_->text() + (completed ? tr(" · done") : tr(" · stopped")) +
                         tr(" · saved in %1").arg(QDir::toNativeSeparators(runDir_)));
        status_->setToolTip(tr("The run's folder: Continue Run… (or attnscope train --resume --out FOLDER) "
                               "goes on from its last checkpoint; its model/ opens as a model"));
    } else {
        status_->setText(tr("The run failed: %1").arg(error));
    }
    updateButtons();
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
