// config.json parsing: defaults, every field, and invalid configs refused with the field named.

#include "core/base/Errors.h"
#include "core/model/ModelConfig.h"

#include <QtTest>

using namespace core;

class TestConfig : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void defaultsAreValid();
    void roundTrip();
    void recurrentRoundTrip();
    void invalid_data();
    void invalid();
};

void TestConfig::defaultsAreValid() {
    ModelConfig c;
    c.validate();
    const auto parsed = ModelConfig::fromJson("{}");
    QCOMPARE(parsed.dModel, c.dModel);
    QCOMPARE(parsed.heads, c.heads);
}

void TestConfig::roundTrip() {
    const auto c = ModelConfig::fromJson(R"({"name": "x", "description": "adds", "example": "321+54",
        "architecture": "decoder_only", "decoder_layers": 3,
        "d_model": 48, "heads": 6, "d_ff": 96, "tgt_vocab_size": 99, "max_len": 77, "positional_encoding": "rope",
        "layer_norm": "standard", "norm_eps": 1e-5, "activation": "gelu_tanh", "tie_output": true,
        "tokenizer": {"type": "word", "tgt_vocab": "v.json", "lowercase": true}})");
    QCOMPARE(c.architecture, Architecture::DecoderOnly);
    QCOMPARE(c.positional, PositionalEncoding::Rope);
    QCOMPARE(c.layerNorm, LayerNormKind::Standard);
    QCOMPARE(c.activation, Activation::GeluTanh);
    QCOMPARE(c.tokenizer, TokenizerKind::Word);
    QVERIFY(c.lowercase && c.tieOutput);
    QCOMPARE(c.example, std::string("321+54"));
    QCOMPARE(c.description, std::string("adds"));
    const auto again = ModelConfig::fromJson(c.toJson());
    QCOMPARE(again.toJson(), c.toJson());
    QCOMPARE(again.headDim(), 8);
}

void TestConfig::recurrentRoundTrip() {
    // The recurrent families read as one layer of one head, over states of their width; a classifier's
    // target side is its classes after the four specials.
    const auto clf = ModelConfig::fromJson(R"({"family": "attention_classifier", "embed_size": 8,
        "hidden_size": 6, "classes": ["ham", "spam", "other"], "src_vocab_size": 50,
        "tokenizer": {"type": "word", "src_vocab": "words.json", "lowercase": true}})");
    QCOMPARE(clf.family, Family::AttentionClassifier);
    QCOMPARE(clf.tgtVocabSize, 7);
    QCOMPARE(clf.dModel, 12);
    QCOMPARE(clf.heads, 1);
    QCOMPARE(clf.decoderLayers, 1);
    QCOMPARE(ModelConfig::fromJson(clf.toJson()).toJson(), clf.toJson());
    const auto gru = ModelConfig::fromJson(R"({"family": "gru_attention", "hidden_size": 32,
        "attention_score": "additive", "src_vocab_size": 40, "tgt_vocab_size": 41})");
    QCOMPARE(gru.score, RecurrentScore::Additive);
    QCOMPARE(gru.dModel, 32);
    QVERIFY(gru.hasEncoder());
    QCOMPARE(ModelConfig::fromJson(gru.toJson()).toJson(), gru.toJson());
    QVERIFY(!QString::fromStdString(gru.toJson()).contains(QStringLiteral("heads")));
}

void TestConfig::invalid_data() {
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("fragment");
    QTest::newRow("not json") << "{"
                              << "not valid JSON";
    QTest::newRow("not object") << "[1]"
                                << "JSON object";
    // Inputs that once crashed the program: a number beyond double's range, nesting 70,000 deep; and one
    // that was read silently as something else: a key twice.
    QTest::newRow("number overflow") << R"({"norm_eps": 1e400})"
                                     << "not valid JSON";
    QTest::newRow("nested deep") << QString(70000, QLatin1Char('[')) + QString(70000, QLatin1Char(']'))
                                 << "nested more than 64 levels deep";
    QTest::newRow("nested in a string")
        << R"({"name": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[", "heads": 0})"
        << "heads";
    QTest::newRow("example not text") << R"({"example": 321})"
                                      << "example";
    QTest::newRow("description too long")
        << QStringLiteral(R"({"description": "%1"})").arg(QString(1001, QLatin1Char('x')))
        << "field 'description' has 1001 bytes; at most 1000";
    QTest::newRow("duplicate key") << R"({"heads": 4, "heads": 2})"
                                   << "the key \"heads\" appears twice";
    QTest::newRow("duplicate nested key") << R"({"tokenizer": {"type": "char", "type": "word"}})"
                                          << "the key \"type\" appears twice";
    QTest::newRow("unknown field") << R"({"d_modle": 64})"
                                   << "unknown field 'd_modle'";
    QTest::newRow("bad arch") << R"({"architecture": "rnn"})"
                              << "architecture";
    QTest::newRow("heads divide") << R"({"d_model": 30, "heads": 4})"
                                  << "not divisible";
    QTest::newRow("zero layers") << R"({"encoder_layers": 0})"
                                 << "encoder_layers";
    QTest::newRow("negative d_ff") << R"({"d_ff": -3})"
                                   << "d_ff";
    QTest::newRow("string int") << R"({"heads": "4"})"
                                << "'heads' must be an integer";
    QTest::newRow("bad pe") << R"({"positional_encoding": "alibi"})"
                            << "positional_encoding";
    QTest::newRow("bad norm") << R"({"layer_norm": "batch"})"
                              << "layer_norm";
    QTest::newRow("kv heads") << R"({"heads": 4, "kv_heads": 3})"
                              << "field 'kv_heads' is 3; expected 0 (one per head) or a divisor of heads 4";
    QTest::newRow("gated without d_ff") << R"({"gated_feed_forward": true, "d_ff": 0})"
                                        << "gated_feed_forward needs a feed-forward sublayer";
    QTest::newRow("rope style") << R"({"positional_encoding": "rope", "rope_style": "sideways"})"
                                << "expected one of interleaved, halves";
    QTest::newRow("rope scaling") << R"({"positional_encoding": "rope", "rope_scaling": {"type": "yarn"}})"
                                  << "'rope_scaling.type' is \"yarn\"";
    QTest::newRow("eps") << R"({"norm_eps": 0})"
                         << "norm_eps";
    QTest::newRow("share sizes")
        << R"({"share_embeddings": true, "src_vocab_size": 10, "tgt_vocab_size": 11})"
        << "share_embeddings";
    QTest::newRow("rope odd") << R"({"positional_encoding": "rope", "d_model": 12, "heads": 4})"
                              << "rope";
    QTest::newRow("tokenizer path") << R"({"tokenizer": {"src_vocab": "../x.json"}})"
                                    << "plain file name";
    QTest::newRow("tokenizer key") << R"({"tokenizer": {"kind": "char"}})"
                                   << "tokenizer.kind";
    QTest::newRow("bad family") << R"({"family": "lstm"})"
                                << "expected one of transformer, attention_classifier, gru_attention";
    QTest::newRow("heads on a classifier")
        << R"({"family": "attention_classifier", "heads": 2,
        "classes": ["a", "b"]})"
        << "field 'heads' does not apply to the attention_classifier family";
    QTest::newRow("classes on a transformer") << R"({"classes": ["a", "b"]})"
                                              << "field 'classes' does not apply to the transformer family";
    QTest::newRow("classes on a translator") << R"({"family": "gru_attention", "classes": ["a", "b"]})"
                                             << "field 'classes' does not apply to the gru_attention family";
    QTest::newRow("score on a classifier")
        << R"({"family": "attention_classifier", "attention_score": "additive", "classes": ["a", "b"]})"
        << "'attention_score' does not apply";
    QTest::newRow("classifier's target size") << R"({"family": "attention_classifier", "tgt_vocab_size": 9,
        "classes": ["a", "b"]})"
                                              << "its outputs are the 'classes'";
    QTest::newRow("one class") << R"({"family": "attention_classifier", "classes": ["a"]})"
                               << "names 1 classes; expected 2..4096";
    QTest::newRow("class twice") << R"({"family": "attention_classifier", "classes": ["a", "a"]})"
                                 << "names \"a\" twice";
    QTest::newRow("special class") << R"({"family": "attention_classifier", "classes": ["a", "<pad>"]})"
                                   << "kept for the special tokens";
    QTest::newRow("classes not text") << R"({"family": "attention_classifier", "classes": "a, b"})"
                                      << "must be a list of strings";
    QTest::newRow("zero hidden") << R"({"family": "gru_attention", "hidden_size": 0})"
                                 << "hidden_size";
    QTest::newRow("bad score") << R"({"family": "gru_attention", "attention_score": "dot"})"
                               << "expected one of concat, additive";
}

void TestConfig::invalid() {
    QFETCH(QString, json);
    QFETCH(QString, fragment);
    try {
        ModelConfig::fromJson(json.toStdString(), "cfg.json");
        QFAIL("accepted an invalid config");
    } catch (const Error& e) {
        const QString msg = QString::fromStdString(e.what());
        QVERIFY2(msg.startsWith(QStringLiteral("cfg.json")), qPrintable(msg));
        QVERIFY2(msg.contains(fragment), qPrintable(msg));
    }
}

QTEST_APPLESS_MAIN(TestConfig)
#include "test_config.moc"
