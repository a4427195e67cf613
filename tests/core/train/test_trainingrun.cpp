// TrainingRun, the one training loop: where log rows, evaluations, checkpoints and probes land, what a
// stop leaves behind, and that a stopped run resumed ends with the weights of one never stopped.

#include "tests/support/TrainingFixtures.h"

#include "core/analysis/HeadAnalysis.h"
#include "core/base/Errors.h"
#include "core/base/Files.h"
#include "core/train/TrainingRun.h"

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <set>

namespace fs = std::filesystem;

namespace {

// 40 steps of a tiny copy model: evaluations every 15, checkpoints every 10.
core::TrainRecipe recipe() {
    return core::TrainRecipe::fromJson(R"({"name": "tiny", "task": "copy", "min_len": 1, "max_len": 4,
        "model": {"architecture": "encoder_decoder", "encoder_layers": 1, "decoder_layers": 1,
                  "d_model": 32, "heads": 2, "d_ff": 64},
        "batch_size": 16, "steps": 40, "warmup": 20, "length_buckets": 4, "seed": 3,
        "checkpoint_every": 10, "eval_every": 15, "eval_examples": 20})");
}

std::vector<int64_t> loggedSteps(const std::string& dir) {
    std::vector<int64_t> steps;
    for (const auto& row : core::TrainLog::read(dir + "/log.csv"))
        steps.push_back(row.stats.step);
    return steps;
}

int64_t checkpointStep(const std::string& dir) {
    const auto state = core::readFile(dir + "/checkpoint/state.json");
    const auto at = state.find("\"step\": ");
    return at == std::string::npos ? -1 : std::stoll(state.substr(at + 8));
}

} // namespace

class TestTrainingRun : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void cadence();
    void stopThenResumeIsExact();
    void resumeIsBitExact_data();
    void resumeIsBitExact();
    void pauseHoldsTheStep();
    void refusesAFolderWithARun();
    void inductionRunsWatchTheirHeads();
    void olderLogsReadAndGrow();
};

void TestTrainingRun::cadence() {
    QTemporaryDir dir;
    const auto out = dir.path().toStdString();
    auto run = core::TrainingRun::start(recipe(), out);
    std::vector<int64_t> logged, evaluated, probed, checkpoints;
    core::RunCallbacks cb;
    cb.onLogged = [&](const core::RunProgress& p) {
        logged.push_back(p.stats.step);
        if (p.metric >= 0)
            evaluated.push_back(p.stats.step);
        QCOMPARE(p.total, int64_t(40));
    };
    cb.onProbe = [&](int64_t step) { probed.push_back(step); };
    cb.onStep = [&](const core::TrainStats& s) {
        // A checkpoint of step s - 1 is on disk once step s runs, when s - 1 was a multiple of 10.
        if ((s.step - 1) > 0 && (s.step - 1) % 10 == 0)
            checkpoints.push_back(checkpointStep(out));
    };
    core::RunOptions options;
    options.logEvery = 10;
    options.probeEvery = 8;
    QCOMPARE(run->run(cb, options), core::RunEnd::Completed);
    // Every 10 steps, every evaluation (15, 30) and the last step, each once.
    QCOMPARE(logged, (std::vector<int64_t>{10, 15, 20, 30, 40}));
    QCOMPARE(loggedSteps(out), logged);
    QCOMPARE(evaluated, (std::vector<int64_t>{15, 30, 40}));
    QVERIFY(run->finalMetric() >= 0.0);
    QCOMPARE(probed, (std::vector<int64_t>{0, 8, 16, 24, 32, 40})); // the start, every 8, the end once
    QCOMPARE(checkpoints, (std::vector<int64_t>{10, 20, 30}));
    QCOMPARE(checkpointStep(out), int64_t(40));
    QVERIFY(fs::exists(out + "/model/model.safetensors"));
}

void TestTrainingRun::stopThenResumeIsExact() {
    QTemporaryDir straight, split;
    core::TrainingRun::start(recipe(), straight.path().toStdString())->run({});
    const auto out = split.path().toStdString();
    {
        auto run = core::TrainingRun::start(recipe(), out);
        core::RunCallbacks cb;
        int64_t step = 0;
        cb.onStep = [&](const core::TrainStats& s) { step = s.step; };
        cb.stopRequested = [&] { return step >= 17; };
        QCOMPARE(run->run(cb), core::RunEnd::Stopped);
        QCOMPARE(run->trainer().stats().step, int64_t(17));
    }
    // A stop leaves a checkpoint of the step it stopped at and a log row for it, and no model/ (the
    // command line's choice; the window asks for one with exportOnStop).
    QCOMPARE(checkpointStep(out), int64_t(17));
    QCOMPARE(loggedSteps(out), (std::vector<int64_t>{10, 15, 17}));
    QVERIFY(!fs::exists(out + "/model"));
    QVERIFY(core::TrainingRun::hasCheckpoint(out));

    auto resumed = core::TrainingRun::resume(out);
    QCOMPARE(resumed->trainer().stats().step, int64_t(17));
    QCOMPARE(resumed->run({}), core::RunEnd::Completed);
    QVERIFY(core::readFile(out + "/model/model.safetensors") ==
            core::readFile(straight.path().toStdString() + "/model/model.safetensors"));
    QCOMPARE(loggedSteps(out), (std::vector<int64_t>{10, 15, 17, 20, 30, 40}));
}

void TestTrainingRun::resumeIsBitExact_data() {
    QTest::addColumn<QString>("task");
    QTest::addColumn<int>("stopAt");
    QTest::newRow("copy task") << "copy" << 13;
    QTest::newRow("translation") << "translation" << 5;
    QTest::newRow("language model") << "language_model" << 7;
}

void TestTrainingRun::resumeIsBitExact() {
    // Stopped at a step and resumed, a run ends where one never stopped ends: every row of the loss log the
    // same bytes (but for the two timing columns, which measure this machine) and the final weights the same
    // bytes. Every step is logged, so a step that drew a different batch would show in its loss.
    QFETCH(QString, task);
    QFETCH(int, stopAt);
    QTemporaryDir data, straight, split;
    core::TrainRecipe r;
    if (task == QStringLiteral("translation")) {
        writeTranslationCorpus(data.path());
        r = translationRecipe(data.path());
    } else if (task == QStringLiteral("language_model")) {
        writeTextCorpus(data.path());
        r = lmRecipe(data.path(), 16);
    } else {
        r = recipe();
        r.steps = 24;
    }
    r.evalEvery = 6; // evaluations on both sides of the stop, and their scores in the log
    core::RunOptions everyStep;
    everyStep.logEvery = 1;
    QCOMPARE(core::TrainingRun::start(r, straight.path().toStdString())->run({}, everyStep),
             core::RunEnd::Completed);
    const auto out = split.path().toStdString();
    {
        auto run = core::TrainingRun::start(r, out);
        core::RunCallbacks cb;
        int64_t step = 0;
        cb.onStep = [&](const core::TrainStats& s) { step = s.step; };
        cb.stopRequested = [&] { return step >= stopAt; };
        QCOMPARE(run->run(cb, everyStep), core::RunEnd::Stopped);
    }
    QCOMPARE(checkpointStep(out), int64_t(stopAt));
    QCOMPARE(core::TrainingRun::resume(out)->run({}, everyStep), core::RunEnd::Completed);

    // step,loss,lr,tokens_per_s,elapsed_s,accuracy,induction,previous_token: all but the 4th and 5th.
    const auto lossLog = [](const std::string& dir) {
        QStringList rows;
        for (const auto& line :
             QString::fromStdString(core::readFile(dir + "/log.csv")).split(QLatin1Char('\n'))) {
            auto cells = line.split(QLatin1Char(','));
            if (cells.size() == 8)
                rows << (cells.mid(0, 3) + cells.mid(5)).join(QLatin1Char(','));
        }
        return rows;
    };
    const auto a = lossLog(straight.path().toStdString()), b = lossLog(out);
    QCOMPARE(a.size(), 1 + int(r.steps));
    QCOMPARE(b, a);
    const auto weights = core::readFile(out + "/model/model.safetensors");
    QVERIFY(weights == core::readFile(straight.path().toStdString() + "/model/model.safetensors"));
    qInfo("%s: stopped at %d of %lld steps, resumed: %lld log rows and %zu bytes of weights identical",
          qPrintable(task), stopAt, static_cast<long long>(r.steps), static_cast<long long>(a.size() - 1),
          weights.size());
}

void TestTrainingRun::pauseHoldsTheStep() {
    QTemporaryDir dir;
    auto run = core::TrainingRun::start(recipe(), dir.path().toStdString());
    int64_t step = 0;
    int pausedPolls = 0;
    core::RunCallbacks cb;
    cb.onStep = [&](const core::TrainStats& s) { step = s.step; };
    // Paused at step 5 for 10 polls (the loop sleeps 20 ms between them), then stopped.
    cb.pauseRequested = [&] { return step == 5 && ++pausedPolls <= 10; };
    cb.stopRequested = [&] { return pausedPolls >= 10; };
    core::RunOptions options;
    options.exportOnStop = true;
    QCOMPARE(run->run(cb, options), core::RunEnd::Stopped);
    QCOMPARE(step, int64_t(5)); // no step ran while paused
    QCOMPARE(pausedPolls, 10);
    QVERIFY(fs::exists(dir.path().toStdString() + "/model/model.safetensors")); // exportOnStop
}

void TestTrainingRun::refusesAFolderWithARun() {
    QTemporaryDir dir;
    const auto out = dir.path().toStdString();
    auto run = core::TrainingRun::start(recipe(), out);
    core::RunCallbacks cb;
    cb.stopRequested = [] { return true; }; // stops before the first step, saving a checkpoint of step 0
    QCOMPARE(run->run(cb), core::RunEnd::Stopped);
    QVERIFY(loggedSteps(out).empty()); // no row for a step this run did not take
    try {
        core::TrainingRun::start(recipe(), out);
        QFAIL("a second run started over the first");
    } catch (const core::InputError& e) {
        QVERIFY2(QString(e.what()).contains(QStringLiteral("already holds a run")), e.what());
    }
    QVERIFY_THROWS_EXCEPTION(core::ModelError, core::TrainingRun::resume(out + "/nothing"));
}

void TestTrainingRun::inductionRunsWatchTheirHeads() {
    // Every row of an induction run holds the best heads' scores; the last equal the head analysis of the
    // model the run leaves, which is what `attnscope heads` prints for it.
    QTemporaryDir dir;
    const auto out = dir.path().toStdString();
    auto r = core::TrainRecipe::fromJson(R"({"name": "tiny-induction", "task": "induction", "min_len": 4,
        "max_len": 8, "model": {"architecture": "decoder_only", "decoder_layers": 2, "d_model": 32,
        "heads": 2, "d_ff": 0, "max_len": 19}, "batch_size": 16, "steps": 30, "warmup": 20, "seed": 3,
        "checkpoint_every": 10, "eval_every": 15, "eval_examples": 20})");
    std::vector<core::HeadWatch> seen;
    core::RunCallbacks cb;
    cb.onLogged = [&](const core::RunProgress& p) { seen.push_back(p.heads); };
    QCOMPARE(core::TrainingRun::start(r, out)->run(cb), core::RunEnd::Completed);
    const auto rows = core::TrainLog::read(out + "/log.csv");
    QCOMPARE(rows.size(), seen.size());
    QCOMPARE(rows.size(), std::size_t(4)); // 10, 15, 20, 30
    for (std::size_t i = 0; i < rows.size(); ++i) {
        QVERIFY(rows[i].heads.measured());
        QVERIFY(rows[i].heads.induction <= 1.0 && rows[i].heads.previous >= 0.0 &&
                rows[i].heads.previous <= 1.0);
        QVERIFY(std::abs(rows[i].heads.induction - seen[i].induction) < 1e-5); // as written: 6 digits
    }
    const auto model = core::Model::load(out + "/model", core::DeviceChoice::Cpu);
    double induction = 0, previous = 0;
    for (const auto& h : core::analyzeHeads(*model, {})) {
        induction = std::max(induction, h.inductionScore);
        previous = std::max(previous, h.previousTokenScore);
    }
    qInfo("an induction run's last row: induction %.6f, previous token %.6f; the exported model's heads: "
          "%.6f, %.6f",
          rows.back().heads.induction, rows.back().heads.previous, induction, previous);
    QVERIFY(std::abs(rows.back().heads.induction - induction) < 1e-5);
    QVERIFY(std::abs(rows.back().heads.previous - previous) < 1e-5);

    // Other tasks leave the two columns empty.
    QTemporaryDir copy;
    core::TrainingRun::start(recipe(), copy.path().toStdString())->run({});
    for (const auto& row : core::TrainLog::read(copy.path().toStdString() + "/log.csv"))
        QVERIFY(!row.heads.measured());
}

void TestTrainingRun::olderLogsReadAndGrow() {
    // A log written before the head columns: read as it is, and given the current header when a resumed run
    // adds to it. formedAt finds the first row at the threshold.
    QTemporaryDir dir;
    const auto path = dir.path().toStdString() + "/log.csv";
    core::writeFileAtomically(path, "step,loss,lr,tokens_per_s,elapsed_s,accuracy\n10,3.5,0.001,900,1.5,\n"
                                    "20,3.1,0.001,950,3,0.25\n");
    auto rows = core::TrainLog::read(path);
    QCOMPARE(rows.size(), std::size_t(2));
    QCOMPARE(rows[1].accuracy, 0.25);
    QVERIFY(rows[0].accuracy < 0 && !rows[1].heads.measured());
    core::TrainStats s;
    s.step = 30;
    s.loss = 0.5;
    core::TrainLog::append(path, s, -1.0, core::HeadWatch{0.75, 0.5});
    s.step = 40;
    core::TrainLog::append(path, s, 0.5, {});
    const auto text = core::readFile(path);
    QCOMPARE(text.substr(0, text.find('\n')),
             std::string("step,loss,lr,tokens_per_s,elapsed_s,accuracy,induction,previous_token"));
    rows = core::TrainLog::read(path);
    QCOMPARE(rows.size(), std::size_t(4));
    QCOMPARE(rows[2].heads.induction, 0.75);
    QCOMPARE(rows[2].heads.previous, 0.5);
    QVERIFY(rows[2].accuracy < 0);
    QCOMPARE(rows[3].accuracy, 0.5);
    QVERIFY(!rows[3].heads.measured());
    QCOMPARE(core::TrainLog::formedAt(rows), int64_t(30));
    QCOMPARE(core::TrainLog::formedAt(rows, 0.8), int64_t(-1));
    // Damaged rows are skipped, not read as numbers they are not: torn inside the head columns, a loss
    // that is no number, a row cut after its step.
    core::writeFileAtomically(path, core::readFile(path) +
                                        "50,0.4,0.001,900,7,,0.8\n60,nan,0.001,900,8,,,\n70,0.3\n"
                                        "80,0.2,0.001,900,9,,0.9,0.6\n");
    rows = core::TrainLog::read(path);
    QCOMPARE(rows.size(), std::size_t(5));
    QCOMPARE(rows.back().stats.step, int64_t(80));
    QCOMPARE(rows.back().heads.induction, 0.9);
    // An empty log (a run killed as it wrote its first row) starts again with its header.
    core::writeFileAtomically(path, "");
    core::TrainLog::append(path, s, 0.5, {});
    rows = core::TrainLog::read(path);
    QCOMPARE(rows.size(), std::size_t(1));
    QCOMPARE(rows[0].stats.step, int64_t(40));
}

QTEST_GUILESS_MAIN(TestTrainingRun)
#include "test_trainingrun.moc"
