// Batched greedy evaluation (TaskEval) gives each source the answer a Session decoding it alone gives,
// for both architectures: rows decoded side by side through the KV cache change nothing.

#include "tests/support/TestModels.h"

#include "core/run/Session.h"
#include "core/train/TaskEval.h"

#include <QtTest>

using namespace core;

Q_DECLARE_METATYPE(core::Architecture)

namespace {

// What one Session, greedy, answers to a source within maxAnswer tokens, spelled as TaskEval spells it.
std::string alone(const std::shared_ptr<const Model>& model, const std::string& source, int maxAnswer) {
    std::vector<int64_t> src;
    for (const auto& t : model->sourceTokens(source))
        src.push_back(t.id);
    Session s(model);
    const auto eos = model->targetTokenizer().vocab().eos();
    if (model->config().hasEncoder()) {
        s.analyzeIds(src, {});
    } else {
        src.push_back(eos); // a decoder-only task model reads "<bos> source <eos>" and answers after it
        s.analyzeIds(src, {});
    }
    std::vector<int64_t> answer;
    for (int i = 0; i < maxAnswer && !s.finished(); ++i) {
        const auto token = s.step();
        if (token == eos)
            break;
        answer.push_back(token);
    }
    return model->targetTokenizer().detokenize(answer);
}

} // namespace

class TestTaskEval : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void batchedEqualsAlone_data();
    void batchedEqualsAlone();
};

void TestTaskEval::batchedEqualsAlone_data() {
    QTest::addColumn<Architecture>("arch");
    QTest::newRow("encoder-decoder") << Architecture::EncoderDecoder;
    QTest::newRow("decoder-only") << Architecture::DecoderOnly;
}

void TestTaskEval::batchedEqualsAlone() {
    QFETCH(Architecture, arch);
    const auto model = randomModel(smallConfig(arch, PositionalEncoding::Sinusoidal), 5);
    // Sources of several lengths, so decoder-only prompts fall into several batches and encoder-decoder
    // sources are padded.
    const std::vector<std::string> sources{"abc", "hello", "x", "abcdefghij", "zz", "hello", "qrstuv", "mn"};
    const int maxAnswer = 12;
    const auto batched = greedyAnswers(*model, sources, maxAnswer);
    QCOMPARE(batched.size(), sources.size());
    int nonEmpty = 0;
    for (std::size_t i = 0; i < sources.size(); ++i) {
        QCOMPARE(QString::fromStdString(batched[i]),
                 QString::fromStdString(alone(model, sources[i], maxAnswer)));
        nonEmpty += batched[i].empty() ? 0 : 1;
    }
    QVERIFY(nonEmpty > 0); // the answers say something, so the comparison means something
}

QTEST_GUILESS_MAIN(TestTaskEval)
#include "test_taskeval.moc"
