#include "ui/lesson/LessonNumbers.h"

#include "core/model/Model.h"
#include "ui/base/TokenText.h"

#include <cmath>

namespace ui {

namespace {

// Three decimals: enough to tell 0.998 from 1, and what the heatmap's tooltip shows.
QString probability(double p) {
    return QString::number(p, 'f', 3);
}

QString number(double v) {
    return QString::number(v, 'g', 4);
}

// One weight of a head, or of the layer's mean over heads: that one cell of core::meanOverHeads, summed in
// double and divided as it does (a caption needs no whole layer's mean).
std::optional<QString> weight(const core::AttentionBlock* block, int layer, int head, int row, int col) {
    if (!block || block->empty() || row < 0 || col < 0 || row >= block->queries || col >= block->keys ||
        layer >= block->layers)
        return std::nullopt;
    if (head == core::kMeanHead) {
        double sum = 0.0;
        for (int h = 0; h < block->heads; ++h)
            sum += block->at(layer, h, row, col);
        return probability(static_cast<float>(sum / block->heads));
    }
    if (head >= block->heads)
        return std::nullopt;
    return probability(block->at(layer, head, row, col));
}

} // namespace

QString LessonNumbers::quoted(const std::string& text) {
    QString s = utf8WithByteMarks(text);
    s.remove(QChar(0x2581)); // SentencePiece's word start
    s.remove(QChar(0x0120)); // byte-level BPE's space (Ġ)
    return QStringLiteral("\u201c%1\u201d").arg(s.trimmed());
}

std::optional<QString> LessonNumbers::value(const QString& name, const std::vector<int>& args) const {
    // The Train tab's numbers stand apart from the run on the other pages.
    const auto known = [](auto v, auto show) -> std::optional<QString> {
        return v >= 0 ? std::optional<QString>(show(v)) : std::nullopt;
    };
    const auto whole = [](int64_t v) { return QString::number(v); };
    if (name == QLatin1String("formed"))
        return known(training.formed, whole);
    if (name == QLatin1String("frame_step"))
        return known(training.frameStep, whole);
    if (name == QLatin1String("frame_loss"))
        return known(training.frameLoss, [](double v) { return QString::number(v, 'g', 3); });
    if (name == QLatin1String("frame_induction"))
        return known(training.frameInduction, probability);
    if (name == QLatin1String("frame_previous"))
        return known(training.framePrevious, probability);
    if (!result || !result->snapshot || !result->model)
        return std::nullopt;
    const auto& snap = *result->snapshot;
    const auto& config = result->model->config();
    const auto* block = shown.snapshot ? shown.block() : &snap.block(shown.kind);
    const auto queries = core::queryTokens(snap, shown.kind);
    const auto keys = core::keyTokens(snap, shown.kind);
    const int row = args.size() == 2 ? args[0] : highlight.cellRow;
    const int col = args.size() == 2 ? args[1] : highlight.cellColumn;
    const auto tokenAt = [](const std::vector<core::Token>& tokens, int i) -> std::optional<QString> {
        if (i < 0 || i >= int(tokens.size()))
            return std::nullopt;
        return quoted(tokens[std::size_t(i)].text);
    };

    if (name == QLatin1String("weight"))
        return weight(block, shown.layer, shown.head, row, col);
    if (name == QLatin1String("query"))
        return tokenAt(queries, row);
    if (name == QLatin1String("key"))
        return tokenAt(keys, col);
    if (name == QLatin1String("src"))
        return tokenAt(snap.srcTokens, args.at(0));
    if (name == QLatin1String("tgt"))
        return tokenAt(snap.tgtTokens, args.at(0));
    if (name == QLatin1String("next") || name == QLatin1String("next_p")) {
        const auto& lp = snap.nextTokenLogProbs;
        if (lp.empty())
            return std::nullopt;
        const auto best = std::size_t(std::max_element(lp.begin(), lp.end()) - lp.begin());
        if (name == QLatin1String("next_p"))
            return probability(std::exp(double(lp[best])));
        return quoted(result->model->targetTokenizer().vocab().token(int64_t(best)));
    }
    if (name == QLatin1String("output"))
        return QStringLiteral("\u201c%1\u201d").arg(result->decodedText);
    if (name == QLatin1String("step"))
        return QString::number(result->step);
    if (name == QLatin1String("d_k"))
        return QString::number(config.headDim());
    if (name == QLatin1String("sqrt_d_k"))
        return number(std::sqrt(double(config.headDim())));
    if (name == QLatin1String("d_model"))
        return QString::number(config.dModel);
    if (name == QLatin1String("heads"))
        return QString::number(config.heads);
    if (name == QLatin1String("layers"))
        return QString::number(block && !block->empty() ? block->layers : config.decoderLayers);
    if (name == QLatin1String("score") || name == QLatin1String("scaled") ||
        name == QLatin1String("softmax")) {
        if (!inside || col < 0 || col >= int(inside->row.scores.size()))
            return std::nullopt;
        const auto& r = inside->row;
        const auto j = std::size_t(col);
        return name == QLatin1String("score")    ? number(r.scores[j])
               : name == QLatin1String("scaled") ? number(r.scaled[j])
                                                 : probability(r.weights[j]);
    }
    if (name == QLatin1String("similarity")) {
        const auto table = result->model->positionalTable(false);
        const int dims = config.dModel;
        const int positions = dims > 0 ? int(table.size()) / dims : 0;
        const int p = args.at(0), q = args.at(1);
        if (p >= positions || q >= positions)
            return std::nullopt;
        double dot = 0, np = 0, nq = 0;
        for (int d = 0; d < dims; ++d) {
            const double a = table[std::size_t(p * dims + d)], b = table[std::size_t(q * dims + d)];
            dot += a * b;
            np += a * a;
            nq += b * b;
        }
        return np > 0 && nq > 0 ? std::optional<QString>(probability(dot / std::sqrt(np * nq)))
                                : std::nullopt;
    }
    if (name == QLatin1String("induction") || name == QLatin1String("previous")) {
        if (!scores)
            return std::nullopt;
        for (const auto& s : *scores)
            if (s.layer == shown.layer && s.head == shown.head)
                return probability(name == QLatin1String("induction") ? s.inductionScore
                                                                      : s.previousTokenScore);
        return std::nullopt;
    }
    return std::nullopt;
}

} // namespace ui
