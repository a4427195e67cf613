// `attnscope explain`: one row of attention as JSON, stage by stage, with its shapes, its mask and its
// sampling pipeline; the weights recomputed here from its q and K are the ones the decode captured; and a
// kind, layer, head, row or setting the model does not have exits 2 naming the value and the valid range.

#include "tests/support/CliRunner.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <cmath>

using nlohmann::json;

class TestCliExplain : public QObject, protected CliRunner {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void explain();
    void badArguments_data();
    void badArguments();

private:
    QString model_, lm_;
};

void TestCliExplain::initTestCase() {
    QVERIFY(tmp_.isValid());
    model_ = initModel(QStringLiteral("ed"), edConfigJson, QStringLiteral("4"));
    lm_ = initModel(QStringLiteral("lm"), lmConfigJson);
    QVERIFY(!model_.isEmpty() && !lm_.isEmpty());
}

void TestCliExplain::explain() {
    // One row of cross-attention at the current decode step: the stages, with their shapes, and the
    // sampling pipeline; the weights recomputed here from q and K are the captured ones.
    QByteArray out;
    QCOMPARE(run({QStringLiteral("explain"), QStringLiteral("--model"), model_, QStringLiteral("--src"),
                  QStringLiteral("abc"), QStringLiteral("--tgt"), QStringLiteral("xy"),
                  QStringLiteral("--kind"), QStringLiteral("cross"), QStringLiteral("--layer"),
                  QStringLiteral("1"), QStringLiteral("--head"), QStringLiteral("3"),
                  QStringLiteral("--temperature"), QStringLiteral("0.8"), QStringLiteral("--top-k"),
                  QStringLiteral("5"), QStringLiteral("--seed"), QStringLiteral("7")},
                 &out),
             0);
    const auto j = json::parse(out.toStdString());
    QCOMPARE(j["kind"].get<std::string>(), std::string("cross"));
    QCOMPARE(j["row"].get<int>(), 2); // the last target row: the current decode step
    QCOMPARE(j["query_token"].get<std::string>(), std::string("y"));
    QCOMPARE(j["d_k"].get<int>(), 8);
    const auto shape = [&](const char* k) {
        return std::make_pair(j[k].size(), j[k][0].is_array() ? j[k][0].size() : std::size_t(0));
    };
    QCOMPARE(shape("x"), std::make_pair(std::size_t(3), std::size_t(32)));      // T × d_model
    QCOMPARE(shape("memory"), std::make_pair(std::size_t(5), std::size_t(32))); // S × d_model
    QCOMPARE(shape("q"), std::make_pair(std::size_t(3), std::size_t(8)));       // T × d_k
    QCOMPARE(shape("k"), std::make_pair(std::size_t(5), std::size_t(8)));       // S × d_k
    QCOMPARE(shape("products"), std::make_pair(std::size_t(5), std::size_t(8)));
    QCOMPARE(j["mask"], json::array({0, 0, 0, 0, 0}));
    QCOMPARE(j["attn_out"].size(), std::size_t(32));
    double top = -1e300, total = 0.0, worst = 0.0;
    std::vector<double> s;
    for (std::size_t k = 0; k < 5; ++k) {
        double dot = 0.0;
        for (std::size_t d = 0; d < 8; ++d)
            dot += j["q"][2][d].get<double>() * j["k"][k][d].get<double>();
        s.push_back(dot * j["scale"].get<double>());
        top = std::max(top, s.back());
    }
    for (auto& x : s)
        total += (x = std::exp(x - top));
    for (std::size_t k = 0; k < 5; ++k)
        worst = std::max(worst, std::abs(s[k] / total - j["captured_weights"][k].get<double>()));
    QVERIFY2(worst < 1e-5, qPrintable(QString::number(worst)));
    const auto& p = j["sampling"];
    QCOMPARE(p["greedy"].get<bool>(), false);
    QCOMPARE(p["top_k"].get<int>(), 5);
    QVERIFY(p["kept_count"].get<int>() <= 5);
    QCOMPARE(p["candidates"].size(), std::size_t(20));
    QCOMPARE(p["candidates"][5]["in_top_k"].get<bool>(), false);
    QCOMPARE(p["candidates"][5]["kept"].get<double>(), 0.0);

    // Decoder self-attention of a decoder-only model: the causal mask hides the keys after the row.
    QCOMPARE(run({QStringLiteral("explain"), QStringLiteral("--model"), lm_, QStringLiteral("--src"),
                  QStringLiteral("hello"), QStringLiteral("--kind"), QStringLiteral("decoder"),
                  QStringLiteral("--layer"), QStringLiteral("2"), QStringLiteral("--head"),
                  QStringLiteral("1"), QStringLiteral("--row"), QStringLiteral("2")},
                 &out),
             0);
    const auto d = json::parse(out.toStdString());
    QCOMPARE(d["mask"], json::parse("[0,0,0,null,null,null]"));
    QCOMPARE(d["weights"][3].get<double>(), 0.0);
    QVERIFY(!d.contains("memory"));
}

void TestCliExplain::badArguments_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("fragment");
    const auto explain = [&](std::initializer_list<const char*> more) {
        QStringList a{QStringLiteral("explain"), QStringLiteral("--model"), model_, QStringLiteral("--src"),
                      QStringLiteral("abc")};
        for (const char* s : more)
            a << QString::fromUtf8(s);
        return a;
    };
    QTest::newRow("explain layer") << explain({"--kind", "encoder", "--layer", "5", "--head", "0"})
                                   << "layer 5 is out of range: the encoder has layers 0–1";
    QTest::newRow("explain head") << explain({"--kind", "decoder", "--layer", "0", "--head", "-1"})
                                  << "head -1 is out of range: each layer has heads 0–3";
    QTest::newRow("explain row") << explain({"--kind", "cross", "--layer", "0", "--head", "0", "--row", "9"})
                                 << "row 9 is out of range: the target at this step has rows 0–0";
    QTest::newRow("explain kind") << explain({"--kind", "pooled", "--layer", "0", "--head", "0"})
                                  << "--kind \"pooled\" is not one of encoder, decoder, cross, pooling";
    QTest::newRow("explain no kind") << explain({"--layer", "0", "--head", "0"})
                                     << "--kind encoder|decoder|cross|pooling is required";
    QTest::newRow("explain no head") << explain({"--kind", "cross", "--layer", "0"}) << "--head is required";
    QTest::newRow("explain cross on lm")
        << QStringList{QStringLiteral("explain"), QStringLiteral("--model"), lm_,
                       QStringLiteral("--src"),   QStringLiteral("hi"),      QStringLiteral("--kind"),
                       QStringLiteral("cross"),   QStringLiteral("--layer"), QStringLiteral("0"),
                       QStringLiteral("--head"),  QStringLiteral("0")}
        << "a decoder-only model has decoder attention only";
    QTest::newRow("explain temperature")
        << explain({"--kind", "cross", "--layer", "0", "--head", "0", "--temperature", "0"})
        << "--temperature expects T > 0, not 0";
    QTest::newRow("explain top-p") << explain(
                                          {"--kind", "cross", "--layer", "0", "--head", "0", "--top-p", "x"})
                                   << "--top-p expects a number, not \"x\"";
}

void TestCliExplain::badArguments() {
    QFETCH(QStringList, args);
    QFETCH(QString, fragment);
    QByteArray out, err;
    QCOMPARE(run(args, &out, &err), 2);
    QVERIFY2(err.contains(fragment.toUtf8()), err.constData());
    QVERIFY(out.isEmpty());
}

QTEST_MAIN(TestCliExplain)
#include "test_cli_explain.moc"
