// FlatAdam against LibTorch's own Adam and clip_grad_norm_: the same updates on parameters of several
// shapes, the parameters really rebased (a module sees the new values), replaced gradients still counted,
// and a checkpoint of the wrong size refused.

#include "core/base/Errors.h"
#include "core/train/FlatAdam.h"

#include <QtTest>

#include <torch/torch.h>

namespace {

std::vector<torch::Tensor> makeParams(uint64_t seed) {
    torch::manual_seed(static_cast<int64_t>(seed));
    std::vector<torch::Tensor> ps;
    for (const auto& shape : std::vector<std::vector<int64_t>>{{5, 3}, {3}, {2, 4, 6}, {1}})
        ps.push_back(torch::randn(shape).requires_grad_(true));
    return ps;
}

// The same pseudo-gradients for both optimizers, different each step, large enough to be clipped sometimes.
void setGrads(std::vector<torch::Tensor>& ps, int step) {
    torch::manual_seed(100 + step);
    for (auto& p : ps) {
        auto g = torch::randn(p.sizes()) * (step % 2 ? 3.0 : 0.05);
        if (p.mutable_grad().defined())
            p.mutable_grad().copy_(g);
        else
            p.mutable_grad() = g;
    }
}

double maxDiff(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
    double d = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i)
        d = std::max(d, (a[i] - b[i]).abs().max().item<double>());
    return d;
}

} // namespace

class TestFlatAdam : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void matchesTorchAdam();
    void parametersAreRebased();
    void replacedGradientIsGathered();
    void restoreChecksSizes();
};

void TestFlatAdam::matchesTorchAdam() {
    auto ref = makeParams(1);
    auto ours = makeParams(1);
    torch::optim::Adam adam(ref, torch::optim::AdamOptions(0.0).betas({0.9, 0.98}).eps(1e-9));
    core::FlatAdam flat(ours, 0.9, 0.98, 1e-9);
    QCOMPARE(flat.numel(), int64_t(15 + 3 + 48 + 1));
    int clipped = 0;
    for (int step = 1; step <= 8; ++step) {
        const double lr = 0.01 * step;
        for (auto& g : adam.param_groups())
            static_cast<torch::optim::AdamOptions&>(g.options()).lr(lr);
        setGrads(ref, step);
        setGrads(ours, step);
        const double refNorm = torch::nn::utils::clip_grad_norm_(ref, 1.0);
        const double ourNorm = flat.clipGradNorm(1.0);
        QVERIFY2(std::abs(refNorm - ourNorm) <= 1e-5 * refNorm,
                 qPrintable(QString::number(refNorm - ourNorm)));
        clipped += refNorm > 1.0;
        adam.step();
        flat.step(lr);
        QVERIFY2(maxDiff(ref, ours) < 1e-6,
                 qPrintable(QStringLiteral("step %1: %2").arg(step).arg(maxDiff(ref, ours))));
    }
    QVERIFY(clipped > 0 && clipped < 8); // both branches of clipping were exercised
    QCOMPARE(flat.steps(), int64_t(8));
    // The moments checkpointed are Adam's: exp_avg of the first parameter, element 0.
    const auto& state = static_cast<torch::optim::AdamParamState&>(
        *adam.state().at(c10::guts::to_string(ref[0].unsafeGetTensorImpl())));
    QVERIFY(std::abs(state.exp_avg()[0][0].item<float>() - flat.firstMoment()[0].item<float>()) < 1e-6);
    QVERIFY(std::abs(state.exp_avg_sq()[0][0].item<float>() - flat.secondMoment()[0].item<float>()) < 1e-9);
}

void TestFlatAdam::parametersAreRebased() {
    torch::nn::Linear lin(4, 3);
    const auto before = lin->weight.clone();
    core::FlatAdam flat(lin->parameters(), 0.9, 0.999, 1e-8);
    QVERIFY(torch::equal(lin->weight, before)); // the values moved with the parameter
    // A real backward pass lands in the flat gradient buffer, and the step moves the module's weights.
    flat.zeroGrad();
    lin(torch::ones({2, 4})).sum().backward();
    flat.step(0.1);
    QVERIFY(!torch::equal(lin->weight, before));
    // Adam's first step moves every weight with a nonzero gradient by about lr.
    QVERIFY(std::abs((lin->weight - before).abs().max().item<double>() - 0.1) < 1e-3);
}

void TestFlatAdam::replacedGradientIsGathered() {
    auto a = makeParams(2);
    auto b = makeParams(2);
    core::FlatAdam fa(a, 0.9, 0.98, 1e-9), fb(b, 0.9, 0.98, 1e-9);
    setGrads(a, 1);
    setGrads(b, 1);
    // A fresh tensor in place of the slice (what autograd does when a gradient was undefined).
    b[2].mutable_grad() = b[2].grad().clone();
    fa.step(0.05);
    fb.step(0.05);
    QCOMPARE(maxDiff(a, b), 0.0);
}

void TestFlatAdam::restoreChecksSizes() {
    auto ps = makeParams(3);
    core::FlatAdam flat(ps, 0.9, 0.98, 1e-9);
    QVERIFY_THROWS_EXCEPTION(core::FormatError, flat.restore(std::vector<float>(10), std::vector<float>(10),
                                                             3, "opt.safetensors"));
    try {
        flat.restore(std::vector<float>(10), std::vector<float>(67), 3, "opt.safetensors");
    } catch (const core::FormatError& e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("opt.safetensors")), e.what());
    }
    flat.restore(std::vector<float>(67, 0.5f), std::vector<float>(67, 0.25f), 3, "opt.safetensors");
    QCOMPARE(flat.steps(), int64_t(3));
    QCOMPARE(flat.secondMoment()[66].item<float>(), 0.25f);
}

QTEST_APPLESS_MAIN(TestFlatAdam)
#include "test_flatadam.moc"
