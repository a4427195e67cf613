// Attention invariants on random models of every variant: rows sum to 1, the causal upper triangle is 0.

#include "core/run/Analyze.h"
#include "tests/support/TestModels.h"

#include <QtTest>

#include <cmath>

using namespace core;

Q_DECLARE_METATYPE(core::Architecture)
Q_DECLARE_METATYPE(core::PositionalEncoding)
Q_DECLARE_METATYPE(core::LayerNormKind)

class TestInvariants : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void rows_data();
    void rows();
};

void TestInvariants::rows_data() {
    QTest::addColumn<Architecture>("arch");
    QTest::addColumn<PositionalEncoding>("pos");
    QTest::addColumn<LayerNormKind>("norm");
    for (auto arch : {Architecture::EncoderDecoder, Architecture::DecoderOnly})
        for (auto pos : {PositionalEncoding::Sinusoidal, PositionalEncoding::Learned,
                         PositionalEncoding::Rope, PositionalEncoding::None})
            for (auto norm : {LayerNormKind::Seed, LayerNormKind::Standard})
                QTest::newRow(
                    qPrintable(QStringLiteral("%1/%2/%3").arg(toString(arch), toString(pos), toString(norm))))
                    << arch << pos << norm;
}

void TestInvariants::rows() {
    QFETCH(Architecture, arch);
    QFETCH(PositionalEncoding, pos);
    QFETCH(LayerNormKind, norm);
    const auto model = randomModel(smallConfig(arch, pos, norm));
    // The source ends in padding so masked keys are exercised too.
    const std::vector<int64_t> src{1, 10, 11, 12, 13, 2, 0, 0};
    const std::vector<int64_t> tgt{1, 20, 21, 22, 23, 24};
    const auto snap = core::analyze(*model, src, tgt);
    QCOMPARE(snap.decoder.queries, int(tgt.size()));
    QCOMPARE(snap.encoder.empty(), arch == Architecture::DecoderOnly);
    int rows = 0;
    double worst = 0.0;
    for (auto kind : {AttentionKind::Encoder, AttentionKind::Decoder, AttentionKind::Cross}) {
        const auto& b = snap.block(kind);
        for (int l = 0; l < b.layers; ++l)
            for (int h = 0; h < b.heads; ++h)
                for (int q = 0; q < b.queries; ++q) {
                    double sum = 0.0;
                    for (int k = 0; k < b.keys; ++k) {
                        const float w = b.at(l, h, q, k);
                        QVERIFY(w >= 0.0f && w <= 1.0f);
                        sum += w;
                        if (kind == AttentionKind::Decoder && k > q)
                            QCOMPARE(w, 0.0f); // causal: exactly zero, not merely small
                        if (kind != AttentionKind::Decoder && arch == Architecture::EncoderDecoder &&
                            src[size_t(k)] == 0)
                            QCOMPARE(w, 0.0f); // padded source keys
                    }
                    worst = std::max(worst, std::abs(sum - 1.0));
                    ++rows;
                }
    }
    qInfo("%d rows, largest |row sum - 1| %.3g", rows, worst);
    QVERIFY2(worst < 1e-5, qPrintable(QStringLiteral("worst row sum error %1").arg(worst)));
    QVERIFY(rows > 0);
}

QTEST_APPLESS_MAIN(TestInvariants)
#include "test_invariants.moc"
