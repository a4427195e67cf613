// The shipped task models (resources/models/{copy,reverse,sort,addition}): each answers fresh examples
// exactly, and the attention of copy and reverse shows the algorithm they learned.

#include "core/model/Model.h"
#include "core/run/Analyze.h"
#include "core/run/SnapshotCsv.h"
#include "core/train/TaskEval.h"
#include "core/train/TrainRecipe.h"

#include <QtTest>

#include <filesystem>

namespace {

const std::string kModels = ATTNSCOPE_SOURCE_DIR "/resources/models/";
const std::string kRecipes = ATTNSCOPE_SOURCE_DIR "/resources/recipes/";
constexpr uint64_t kEvalSeed = 20261122; // fixed, and never a training seed (those draw from another stream)

} // namespace

class TestTaskModels : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void accuracy_data();
    void accuracy();
    void attentionShowsTheAlgorithm_data();
    void attentionShowsTheAlgorithm();
};

void TestTaskModels::accuracy_data() {
    QTest::addColumn<QString>("name");
    for (const char* n : {"copy", "reverse", "sort", "addition"})
        QTest::newRow(n) << n;
}

void TestTaskModels::accuracy() {
    QFETCH(QString, name);
    const auto dir = kModels + name.toStdString();
    QVERIFY2(std::filesystem::exists(dir + "/model.safetensors"), dir.c_str());
    // At most 2 MB, so the repository stays lean.
    const auto bytes = std::filesystem::file_size(dir + "/model.safetensors");
    QVERIFY2(bytes <= 2u * 1024 * 1024, qPrintable(QString::number(bytes)));
    const auto recipe = core::TrainRecipe::fromFile(kRecipes + name.toStdString() + ".json");
    const auto model = core::Model::load(dir, core::DeviceChoice::Cpu);
    QCOMPARE(model->config().name, recipe.name);
    const double acc = core::taskAccuracy(*model, recipe.makeTask(), 1000, kEvalSeed);
    qInfo("%s: exact match %.1f%% on 1000 fresh examples (model file %.0f kB)", qPrintable(name), 100 * acc,
          static_cast<double>(bytes) / 1024.0);
    QVERIFY(acc >= 0.98);
}

void TestTaskModels::attentionShowsTheAlgorithm_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("mirrored");
    QTest::newRow("copy: the same position") << "copy" << false;
    QTest::newRow("reverse: the mirrored position") << "reverse" << true;
}

void TestTaskModels::attentionShowsTheAlgorithm() {
    QFETCH(QString, name);
    QFETCH(bool, mirrored);
    const auto model = core::Model::load(kModels + name.toStdString(), core::DeviceChoice::Cpu);
    const auto recipe = core::TrainRecipe::fromFile(kRecipes + name.toStdString() + ".json");
    const auto examples = core::evaluationExamples(recipe.makeTask(), 200, kEvalSeed + 1);
    const int layers = model->config().decoderLayers, heads = model->config().heads;
    const int last = layers - 1;
    std::vector<int> hits(static_cast<std::size_t>(heads), 0);
    int positions = 0;
    for (const auto& e : examples) {
        // Teacher-forced on the right answer: query j is the token fed when output j is produced.
        std::vector<int64_t> src, tgt;
        for (const auto& t : model->sourceTokens(e.source))
            src.push_back(t.id);
        for (const auto& t : model->targetTokens(e.target))
            tgt.push_back(t.id); // <bos> + answer; the last row produces <eos>
        const auto snap = core::analyze(*model, src, tgt);
        const int n = static_cast<int>(e.source.size());
        for (int j = 0; j < n; ++j) {
            // Source position 0 is <bos>: character i sits at key i + 1.
            const int expected = 1 + (mirrored ? n - 1 - j : j);
            for (int h = 0; h < heads; ++h) {
                const float* row = snap.cross.row(last, h, j);
                const int argmax = static_cast<int>(std::max_element(row, row + snap.cross.keys) - row);
                hits[std::size_t(h)] += argmax == expected ? 1 : 0;
            }
            ++positions;
        }
    }
    const auto best = std::max_element(hits.begin(), hits.end()) - hits.begin();
    const double share = static_cast<double>(hits[std::size_t(best)]) / positions;
    QString all;
    for (int h = 0; h < heads; ++h)
        all += QStringLiteral(" H%1 %2%").arg(h).arg(100.0 * hits[std::size_t(h)] / positions, 0, 'f', 1);
    qInfo(
        "%s: cross-attention of decoder layer %d peaks on the %s source position for %d output positions:%s",
        qPrintable(name), last, mirrored ? "mirrored" : "same", positions, qPrintable(all));
    QVERIFY2(share >= 0.9, qPrintable(QStringLiteral("best head H%1: %2").arg(best).arg(share)));
}

QTEST_GUILESS_MAIN(TestTaskModels)
#include "test_taskmodels.moc"
