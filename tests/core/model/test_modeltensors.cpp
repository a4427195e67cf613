// What a config implies about a model's size is known before anything is allocated, and every tensor a model
// computes with is a registered parameter or buffer, so moving the model moves all of them.

#include "tests/support/TestModels.h"

#include "core/base/Errors.h"
#include "core/model/ModelParts.h"

#include <QtTest>

#include <torch/torch.h>

#include <set>

using namespace core;

class TestModelTensors : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void parameterCountMatchesModules_data();
    void parameterCountMatchesModules();
    void parameterCountOfTheLlamaSwitches_data();
    void parameterCountOfTheLlamaSwitches();
    void movingMovesEveryTensor_data();
    void movingMovesEveryTensor();
    void hugeConfigRefusedBeforeAllocating();
};

namespace {

void addVariants() {
    QTest::addColumn<int>("arch");
    QTest::addColumn<int>("pos");
    QTest::addColumn<bool>("share");
    QTest::addColumn<bool>("tie");
    for (int arch : {0, 1})
        for (int pos : {0, 1, 2, 3})
            for (bool tie : {false, true})
                for (bool share : {false, true}) {
                    if (share && arch == 1)
                        continue; // sharing needs an encoder
                    QTest::addRow("%s %s%s%s", arch == 0 ? "enc-dec" : "dec-only",
                                  toString(static_cast<PositionalEncoding>(pos)), share ? " shared" : "",
                                  tie ? " tied" : "")
                        << arch << pos << share << tie;
                }
}

ModelConfig variant(int arch, int pos, bool share, bool tie) {
    auto c = smallConfig(static_cast<Architecture>(arch), static_cast<PositionalEncoding>(pos));
    c.encoderLayers = 3; // unequal stacks, so a formula that swapped them would fail
    c.dFf = 72;
    c.tgtVocabSize = share ? c.srcVocabSize : 37;
    c.shareEmbeddings = share;
    c.tieOutput = tie;
    return c;
}

} // namespace

void TestModelTensors::parameterCountMatchesModules_data() {
    addVariants();
}

// Counts a net's parameters, each storage once.
int64_t countParameters(const nn::TransformerImpl& net) {
    std::set<const void*> seen;
    int64_t n = 0;
    for (const auto& p : net.parameters())
        if (seen.insert(p.data_ptr()).second)
            n += p.numel();
    return n;
}

void TestModelTensors::parameterCountOfTheLlamaSwitches_data() {
    QTest::addColumn<int>("arch");
    QTest::addColumn<int>("kvHeads");
    QTest::addColumn<bool>("gated");
    QTest::addColumn<bool>("rms");
    QTest::addColumn<bool>("qkvBias");
    QTest::addColumn<bool>("linearBias");
    QTest::addColumn<bool>("outputBias");
    QTest::addColumn<int>("dFf");
    QTest::newRow("llama: grouped, gated, rms, no biases")
        << 1 << 2 << true << true << false << false << false << 72;
    QTest::newRow("qwen2: q/k/v biases only") << 1 << 1 << true << true << true << false << false << 72;
    QTest::newRow("one k/v head, linear biases only")
        << 1 << 1 << false << false << false << true << true << 72;
    QTest::newRow("attention-only, rms") << 1 << 0 << false << true << true << true << true << 0;
    QTest::newRow("attention-only, seed norm") << 1 << 0 << false << false << true << true << true << 0;
    QTest::newRow("enc-dec, rms, gated, no biases")
        << 0 << 0 << true << true << false << false << false << 72;
    QTest::newRow("enc-dec attention-only") << 0 << 0 << false << false << true << true << true << 0;
}

void TestModelTensors::parameterCountOfTheLlamaSwitches() {
    QFETCH(int, arch);
    QFETCH(int, kvHeads);
    QFETCH(bool, gated);
    QFETCH(bool, rms);
    QFETCH(bool, qkvBias);
    QFETCH(bool, linearBias);
    QFETCH(bool, outputBias);
    QFETCH(int, dFf);
    auto c = variant(arch, int(PositionalEncoding::Rope), false, false);
    c.kvHeads = kvHeads;
    c.gatedFeedForward = gated;
    c.layerNorm = rms ? LayerNormKind::Rms : LayerNormKind::Seed;
    c.activation = gated ? Activation::Silu : Activation::Relu;
    c.qkvBias = qkvBias;
    c.linearBias = linearBias;
    c.outputBias = outputBias;
    c.dFf = dFf;
    c.validate();
    QCOMPARE(c.parameterCount(), countParameters(*nn::Transformer(c)));
}

void TestModelTensors::parameterCountMatchesModules() {
    QFETCH(int, arch);
    QFETCH(int, pos);
    QFETCH(bool, share);
    QFETCH(bool, tie);
    const auto c = variant(arch, pos, share, tie);
    const auto net = nn::Transformer(c);
    // parameters() lists a shared tensor once per owner that registered it; count each storage once.
    std::set<const void*> seen;
    int64_t params = 0, buffers = 0;
    for (const auto& p : net->parameters())
        if (seen.insert(p.data_ptr()).second)
            params += p.numel();
    for (const auto& b : net->buffers())
        buffers += b.numel();
    QCOMPARE(c.parameterCount(), params);
    QCOMPARE(c.bufferCount(), buffers);
}

void TestModelTensors::movingMovesEveryTensor_data() {
    addVariants();
}

void TestModelTensors::movingMovesEveryTensor() {
    // The CPU build cannot move a model to a GPU, but a dtype change goes through the same Module::to(): a
    // tensor it misses stays float32 here, as it would stay on the CPU there.
    QFETCH(int, arch);
    QFETCH(int, pos);
    QFETCH(bool, share);
    QFETCH(bool, tie);
    const auto c = variant(arch, pos, share, tie);
    auto net = nn::Transformer(c);
    net->to(torch::kFloat64);
    for (const auto& p : net->named_parameters())
        QVERIFY2(p.value().scalar_type() == torch::kFloat64, p.key().c_str());
    for (const auto& b : net->named_buffers())
        QVERIFY2(b.value().scalar_type() == torch::kFloat64, b.key().c_str());
    for (const auto& stack : {net->src_embed, net->tgt_embed})
        if (!stack.is_empty() && stack->positions->table().defined())
            QCOMPARE(stack->positions->table().scalar_type(), torch::kFloat64);
    // The table was the one tensor that did not follow: it must be a buffer now, under the seed's name.
    if (c.positional == PositionalEncoding::Sinusoidal)
        QVERIFY(net->named_buffers().contains("tgt_embed.1.pe"));
}

void TestModelTensors::hugeConfigRefusedBeforeAllocating() {
    // Each size is within its own range; together they ask for about 160 TB. Allocating first aborted.
    auto c = smallConfig(Architecture::EncoderDecoder, PositionalEncoding::Sinusoidal);
    c.dModel = 65536;
    c.heads = 1;
    c.dFf = 1 << 20;
    c.encoderLayers = c.decoderLayers = 256;
    QVERIFY(c.weightBytes() > int64_t(100) << 40);
    try {
        c.validate("config.json");
        QFAIL("a config of 160 TB of weights was accepted");
    } catch (const ConfigError& e) {
        const auto msg = QString::fromUtf8(e.what());
        QVERIFY2(msg.startsWith(QStringLiteral("config.json: the weights of this model need ")), e.what());
        QVERIFY2(msg.contains(QStringLiteral("TB, more than this machine's")), e.what());
    }
    QVERIFY_THROWS_EXCEPTION(ConfigError, buildNetwork(c));
}

QTEST_GUILESS_MAIN(TestModelTensors)
#include "test_modeltensors.moc"
