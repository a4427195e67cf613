// The attention heads' two paths agree: the raw BLAS jobs (what runs on the CPU in float32) and the LibTorch
// operators (any device or type), and both agree with softmax(scale·QKᵀ + mask)·V written out in double,
// for a decode step's single query, a short and a long input, a mask per sequence or per query, a batch,
// an ablated head, and the last row only.

#include "tests/support/SkipReport.h"

#include "core/base/Blas.h"
#include "core/model/nn/HeadJobs.h"

#include <QtTest>

#include <torch/torch.h>

using namespace core;
using core::nn::attendHeadsRaw;
using core::nn::attendHeadsTorch;

namespace {

struct Case {
    int64_t batch, heads, tq, tk, hs;
    int mask;  // 0 none, 1 one row per sequence (a source mask), 2 one row per query (causal)
    bool last; // only the last query's output
    bool ablate;
};

// softmax(scale·QKᵀ + mask)·V per head in double: the probabilities (N, Tq, Tk) and the output (B, rows, C).
std::pair<torch::Tensor, torch::Tensor> expected(const torch::Tensor& q3, const torch::Tensor& k3,
                                                 const torch::Tensor& v3, const torch::Tensor& m,
                                                 const Case& c, double scale) {
    const auto q = q3.to(torch::kFloat64), k = k3.to(torch::kFloat64), v = v3.to(torch::kFloat64);
    auto s = torch::bmm(q, k.transpose(1, 2)) * scale; // (N, Tq, Tk)
    if (m.defined())
        s = s + m.to(torch::kFloat64).repeat_interleave(c.heads, 0).expand_as(s);
    const auto p = s.softmax(-1);
    auto out = torch::bmm(p, v); // (N, Tq, hs)
    if (c.ablate)
        out.view({c.batch, c.heads, c.tq, c.hs}).select(1, 1).zero_();
    out = out.view({c.batch, c.heads, c.tq, c.hs}).transpose(1, 2).reshape({c.batch, c.tq, c.heads * c.hs});
    if (c.last)
        out = out.narrow(1, c.tq - 1, 1);
    return {p, out};
}

} // namespace

Q_DECLARE_METATYPE(Case)

class TestHeadJobs : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void bothPathsMatchTheFormula_data();
    void bothPathsMatchTheFormula();
};

void TestHeadJobs::bothPathsMatchTheFormula_data() {
    QTest::addColumn<Case>("c");
    QTest::newRow("decode step") << Case{1, 4, 1, 64, 64, 0, true, false};
    QTest::newRow("decode step, source mask") << Case{1, 4, 1, 40, 16, 1, true, false};
    QTest::newRow("short, causal") << Case{1, 4, 12, 12, 8, 2, false, false};
    QTest::newRow("long, causal, parallel") << Case{1, 4, 96, 96, 32, 2, false, false};
    QTest::newRow("batch, source mask, ablated") << Case{2, 3, 7, 9, 8, 1, false, true};
    QTest::newRow("last row with every row's weights") << Case{1, 2, 10, 14, 8, 2, true, false};
    QTest::newRow("long rows, LibTorch's softmax") << Case{1, 2, 80, 70, 16, 0, false, true};
}

void TestHeadJobs::bothPathsMatchTheFormula() {
    QFETCH(Case, c);
    if (!blas::available())
        QSKIP_MISSING("the BLAS in this process has no sgemm_/sgemv_ (scripts/setup-deps.sh installs "
                      "libopenblas0-openmp): the raw path never runs here");
    torch::NoGradGuard noGrad;
    torch::manual_seed(7);
    const auto n = c.batch * c.heads, rows = c.last ? 1 : c.tq;
    // Strided like the projections' views: every row of q, k, v a slice of a wider buffer.
    const auto q3 = torch::randn({n, c.tq, c.hs * 3}).narrow(2, c.hs, c.hs);
    const auto k3 = torch::randn({n, c.tk, c.hs * 2}).narrow(2, 0, c.hs);
    const auto v3 = torch::randn({n, c.tk, c.hs});
    torch::Tensor m;
    if (c.mask == 1) { // the last keys of the second sequence blocked, as padding
        m = torch::zeros({c.batch, 1, c.tk});
        m.select(0, c.batch - 1).narrow(-1, c.tk - 3, 3).fill_(-1e9);
    } else if (c.mask == 2) {
        m = torch::ones({c.tq, c.tk})
                .tril(c.tk - c.tq)
                .logical_not()
                .to(torch::kFloat32)
                .mul(-1e9)
                .unsqueeze(0);
    }
    const double scale = 1.0 / std::sqrt(static_cast<double>(c.hs));
    std::vector<std::uint8_t> off(static_cast<std::size_t>(c.heads), 0);
    if (c.ablate)
        off[1] = 1;
    const auto* offs = c.ablate ? off.data() : nullptr;
    auto pRaw = torch::empty({n, c.tq, c.tk}), xRaw = torch::empty({c.batch, rows, c.heads * c.hs});
    auto pOps = torch::empty({n, c.tq, c.tk}), xOps = torch::empty({c.batch, rows, c.heads * c.hs});
    QVERIFY(attendHeadsRaw(q3, k3, v3, m, c.heads, scale, offs, pRaw, xRaw));
    attendHeadsTorch(q3, k3, v3, m, c.heads, scale, offs, pOps, xOps);
    const auto [p, x] = expected(q3, k3, v3, m, c, scale);
    const auto worst = [](const torch::Tensor& a, const torch::Tensor& b) {
        return (a.to(torch::kFloat64) - b).abs().max().item<double>();
    };
    const double pr = worst(pRaw, p), xr = worst(xRaw, x), po = worst(pOps, p), xo = worst(xOps, x);
    qInfo("worst differences from the formula: raw %.2e / %.2e, LibTorch %.2e / %.2e (weights / output)", pr,
          xr, po, xo);
    QVERIFY(pr < 1e-6 && po < 1e-6);
    QVERIFY(xr < 1e-5 && xo < 1e-5);
    // The two paths round differently in the last place at most.
    QVERIFY(worst(pRaw, pOps.to(torch::kFloat64)) < 1e-6);
}

ATTNSCOPE_GUILESS_MAIN(TestHeadJobs)
#include "test_headjobs.moc"
