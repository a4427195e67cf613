#include "ui/inside/InsideText.h"

#include "ui/base/AttentionText.h"
#include "ui/base/TokenText.h"

#include <cmath>

namespace ui {

namespace {

QString num(double v) {
    return std::isfinite(v) ? QString::number(v, 'g', 4) : QStringLiteral("−∞");
}

} // namespace

QString InsideText::quoted(const std::vector<core::Token>& tokens, int i) {
    if (i < 0 || i >= static_cast<int>(tokens.size()))
        return QStringLiteral("?");
    return QStringLiteral("“%1”").arg(tokenDisplayText(tokens[std::size_t(i)]));
}

QString InsideText::heading(const InsideResult& res, bool meanHead) {
    const auto& r = res.row;
    const auto& q = r.query;
    const bool current =
        q.kind != core::AttentionKind::Encoder && q.row + 1 == static_cast<int>(r.queryTokens.size());
    QString h = tr("%1 · layer %2 · head %3 · query row %4 %5%6 · d_model %7, d_k %8 · computed in %9 ms")
                    .arg(AttentionText::kindLabel(q.kind))
                    .arg(q.layer)
                    .arg(q.head)
                    .arg(q.row)
                    .arg(quoted(r.queryTokens, q.row))
                    .arg(current ? tr(" (the current decode step)") : QString())
                    .arg(r.dModel)
                    .arg(r.headSize)
                    .arg(res.ms, 0, 'f', 1);
    if (r.grouped()) {
        const int size = r.heads / r.kvHeads, g = r.kvHead();
        h += tr(" · K and V of key/value head %1 of %2, shared by heads %3–%4")
                 .arg(g)
                 .arg(r.kvHeads)
                 .arg(g * size)
                 .arg(g * size + size - 1);
    }
    if (meanHead)
        h += tr(" — the mean of the heads has no Q, K, V of its own: head 0 is opened");
    return h;
}

std::array<QString, 5> InsideText::lines(const core::InsideRow& r, int j, int d, int c) {
    if (r.recurrent)
        return recurrentLines(r, j, d);
    const int i = r.query.row, hs = r.headSize;
    const auto jj = std::size_t(j), dd = std::size_t(d), cc = std::size_t(c);
    const QString qi = quoted(r.queryTokens, i), kj = quoted(r.keyTokens, j);
    std::array<QString, 5> out;
    out[0] =
        (r.postNorm ? tr("x(%1) = residual (post-norm: the norm comes after the sum) is row %2 of %3 × %4; "
                         "x(%1)[%5] = %6. %7")
                    : tr("x(%1) = norm(residual) is row %2 of %3 × %4; x(%1)[%5] = %6. %7"))
            .arg(qi)
            .arg(i)
            .arg(r.x.rows)
            .arg(r.x.cols)
            .arg(c)
            .arg(num(r.x.at(i, c)))
            .arg(r.memory.empty() ? tr("Self-attention: K and V are projected from these same rows.")
                                  : tr("Cross-attention: K and V are projected from the encoder output."));
    out[1] = tr("q(%1)[%2] = x(%1) · W_Q[:, %3]%9 = %4%5;  k(%6)[%2] = %7;  v(%6)[%2] = %8")
                 .arg(qi)
                 .arg(d)
                 .arg(r.query.head * hs + d)
                 .arg(num(r.q.at(i, d)))
                 .arg(r.rotary ? tr(" (after rotating by position %1)").arg(i) : QString())
                 .arg(kj)
                 .arg(num(r.k.at(j, d)))
                 .arg(num(r.v.at(j, d)))
                 .arg(r.qkvBias ? QStringLiteral(" + b_Q[%1]").arg(r.query.head * hs + d) : QString());
    out[2] = tr("q(%1)[%2] × k(%3)[%2] = %4 × %5 = %6; summed over the %7 dimensions: q(%1)·k(%3) = %8")
                 .arg(qi)
                 .arg(d)
                 .arg(kj)
                 .arg(num(r.q.at(i, d)))
                 .arg(num(r.k.at(j, d)))
                 .arg(num(r.products.at(j, d)))
                 .arg(hs)
                 .arg(num(r.scores[jj]));
    // The forward pass adds −1e9 for a hidden key, which the softmax turns into exactly 0, as −∞ would.
    out[3] = r.visible[jj]
                 ? tr("q(%1)·k(%2) = %3; ÷ √%4 = %5; softmax over the row → %6 (the heatmap's weight: %7)")
                       .arg(qi, kj, num(r.scores[jj]))
                       .arg(hs)
                       .arg(num(r.scaled[jj]), num(r.weights[jj]), num(r.captured[jj]))
                 : tr("q(%1)·k(%2) = %3; ÷ √%4 = %5; the mask adds −∞ (−1e9: %6 may not see %2) → softmax "
                      "gives %7")
                       .arg(qi, kj, num(r.scores[jj]))
                       .arg(hs)
                       .arg(num(r.scaled[jj]), qi, num(r.weights[jj]));
    out[4] =
        (r.postNorm ? tr("%1 × v(%2)[%3] = %4; Σ over the keys → z[%3] = %5. The %6 heads' z side by side "
                         "× W_O%11 → attn_out[%7] = %8; + residual %9, then the norm → %10 goes on to the "
                         "next sublayer.")
                    : tr("%1 × v(%2)[%3] = %4; Σ over the keys → z[%3] = %5. The %6 heads' z side by side "
                         "× W_O%11 → attn_out[%7] = %8; + residual %9 → %10 goes on to the next sublayer."))
            .arg(num(r.weights[jj]), kj)
            .arg(d)
            .arg(num(r.weighted.at(j, d)), num(r.z[dd]))
            .arg(r.heads)
            .arg(c)
            .arg(num(r.attnOut[cc]), num(r.residual[cc]), num(r.output[cc]))
            .arg(r.outBias ? QStringLiteral(" + b_O") : QString());
    QStringList off;
    for (std::size_t h = 0; h < r.headsOff.size(); ++h)
        if (r.headsOff[h])
            off << QString::number(h);
    if (!off.isEmpty()) {
        const bool self = r.query.head < int(r.headsOff.size()) && r.headsOff[std::size_t(r.query.head)];
        out[4] +=
            QLatin1Char(' ') +
            (self ? tr("This head is switched off: it attends as shown, but W_O reads zeros in its place "
                       "(switched off in this layer: head %1).")
                  : tr("Switched off in this layer: head %1 (W_O reads zeros in their place)."))
                .arg(off.join(QStringLiteral(", ")));
    }
    return out;
}

std::array<QString, 5> InsideText::recurrentLines(const core::InsideRow& r, int j, int d) {
    const auto jj = std::size_t(j), dd = std::size_t(d);
    const QString qi = quoted(r.queryTokens, r.query.row), kj = quoted(r.keyTokens, j);
    const bool classifier = r.x.empty();
    std::array<QString, 5> out;
    out[0] = classifier ? tr("The query is learned: the attention layer's weights w (%1 values), one summary "
                             "question asked of every token's BiLSTM output.")
                              .arg(r.q.cols)
                        : tr("The query comes from the decoder's hidden state h before %1 (%2 values), "
                             "projected by the hidden half of the attention layer (plus its bias).")
                              .arg(qi)
                              .arg(r.x.cols);
    out[1] =
        tr("q[%1] = %2;  the key of %3 (its state, projected)[%1] = %4;  its value (the state itself)[%1] = "
           "%5")
            .arg(d)
            .arg(num(r.q.at(0, d)))
            .arg(kj)
            .arg(num(r.k.at(j, d)))
            .arg(num(r.v.at(j, d)));
    out[2] = tr("term %1 of %2's score = %3; the %4 terms plus %5 (what every key shares) make its score %6")
                 .arg(d)
                 .arg(kj)
                 .arg(num(r.products.at(j, d)))
                 .arg(r.products.cols)
                 .arg(num(r.shift))
                 .arg(num(r.scores[jj]));
    out[3] = tr("score %1 → softmax over the %2 source positions (no scaling, nothing masked) → %3 (the "
                "heatmap's weight: %4)")
                 .arg(num(r.scores[jj]))
                 .arg(r.k.rows)
                 .arg(num(r.weights[jj]), num(r.captured[jj]));
    out[4] =
        tr("%1 × value(%2)[%3] = %4; Σ over the source → context[%3] = %5. %6")
            .arg(num(r.weights[jj]), kj)
            .arg(d)
            .arg(num(r.weighted.at(j, d)), num(r.z[dd]))
            .arg(classifier ? tr("The context goes through dropout (in training) and fc to the class logits.")
                            : tr("The context and the next token's embedding go into the GRU, whose new "
                                 "state gives the next token."));
    return out;
}

} // namespace ui
