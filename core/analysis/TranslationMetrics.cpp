// sacreBLEU 2.x's BLEU (metrics/bleu.py), chrF (metrics/chrf.py) and 13a tokenizer (tokenizers/
// tokenizer_13a.py, tokenizer_re.py), step for step, down to the order of floating-point operations, so the
// scores agree with sacreBLEU's to the last printed digit.
//
// Format legend:
//   Text     a UTF-8 string decoded to Unicode code points (std::u32string). Python's str is code points, so
//            chrF's n-grams, str.split()'s whitespace and the tokenizer's one-character classes all are too.
//   word key the n tokens of a word n-gram joined by U+0020; tokens never hold whitespace, so it is unique.
//   char key the n code points of a character n-gram.
//   counts   int64 sums over the corpus; sacreBLEU sums segment statistics, then scores once.

#include "core/analysis/TranslationMetrics.h"

#include "core/analysis/Tokenizer13a.h"

#include "core/base/Errors.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <iterator>
#include <unordered_map>

namespace core {
namespace {

using text13a::decodeUtf8;
using text13a::isPySpace;
using text13a::rstripped;
using text13a::splitWords;
using text13a::Text;
using text13a::tokens13a;
using Counter = std::unordered_map<Text, int64_t>;
using Streams = std::vector<const std::vector<std::string>*>;

constexpr int kBleuOrder = 4;

// "corpusBleu: reference 3 of reference stream 2", counting from 1 like the lines of a file.
std::string segmentName(const char* metric, const char* role, std::size_t segment, std::size_t stream,
                        std::size_t streams) {
    std::string name = std::string(metric) + ": " + role + " " + std::to_string(segment + 1);
    if (streams > 1)
        name += " of reference stream " + std::to_string(stream + 1);
    return name;
}

void checkShapes(const char* metric, std::size_t hypotheses, const Streams& streams) {
    if (streams.empty())
        throw InputError(std::string(metric) + ": no reference stream given");
    for (std::size_t s = 0; s < streams.size(); ++s) {
        if (streams[s]->size() != hypotheses) {
            std::string msg = std::string(metric) + ": " + std::to_string(hypotheses) + " hypotheses but " +
                              std::to_string(streams[s]->size()) + " references";
            if (streams.size() > 1)
                msg += " in reference stream " + std::to_string(s + 1);
            throw InputError(msg);
        }
    }
}

// Segment i's references, decoded. sacreBLEU drops "" so segments may have fewer references; where none is
// left it raises, and we score against one empty reference instead.
std::vector<Text> segmentReferences(const char* metric, const Streams& streams, std::size_t i) {
    std::vector<Text> refs;
    for (std::size_t s = 0; s < streams.size(); ++s) {
        const std::string& ref = (*streams[s])[i];
        if (!ref.empty())
            refs.push_back(decodeUtf8(ref, segmentName(metric, "reference", i, s, streams.size())));
    }
    if (refs.empty())
        refs.emplace_back();
    return refs;
}

// ---- BLEU ----

using WordNgrams = std::array<Counter, kBleuOrder>;

WordNgrams wordNgrams(const std::vector<Text>& tokens) {
    WordNgrams ngrams;
    for (std::size_t n = 1; n <= kBleuOrder; ++n) {
        for (std::size_t i = 0; i + n <= tokens.size(); ++i) {
            Text key = tokens[i];
            for (std::size_t k = 1; k < n; ++k)
                key += U' ' + tokens[i + k];
            ++ngrams[n - 1][key];
        }
    }
    return ngrams;
}

std::vector<Text> bleuTokens(const Text& segment, const BleuOptions& options) {
    const Text line = rstripped(segment);
    return options.tokenize13a ? tokens13a(line) : splitWords(line);
}

double smoothValueOf(const BleuOptions& options) {
    if (options.smoothValue)
        return *options.smoothValue;
    return options.smoothing == BleuSmoothing::Floor ? 0.1 : 1.0;
}

// sacreBLEU's my_log: log(0) floored to -9999999999 so exp() of the mean gives 0 instead of failing.
double flooredLog(double x) {
    return x == 0.0 ? -9999999999.0 : std::log(x);
}

// BLEU.compute_bleu over corpus sums.
BleuScore scoreBleu(BleuScore s, const BleuOptions& options) {
    s.ratio = s.refLen != 0 ? static_cast<double>(s.hypLen) / static_cast<double>(s.refLen) : 0.0;
    if (s.hypLen < s.refLen)
        s.brevityPenalty = s.hypLen > 0
                               ? std::exp(1.0 - static_cast<double>(s.refLen) / static_cast<double>(s.hypLen))
                               : 0.0;
    else
        s.brevityPenalty = 1.0;

    // Without a single match the score is 0 before any smoothing (sacreBLEU #141): smoothing alone would
    // otherwise give such a corpus a positive score.
    if (std::all_of(s.counts.begin(), s.counts.end(), [](int64_t c) { return c == 0; }))
        return s;

    const double value = smoothValueOf(options);
    double smoothMteval = 1.0;
    int order = kBleuOrder;
    for (int n = 1; n <= kBleuOrder; ++n) {
        double correct = static_cast<double>(s.counts[n - 1]);
        double total = static_cast<double>(s.totals[n - 1]);
        if (options.smoothing == BleuSmoothing::AddK && n > 1) {
            correct += value;
            total += value;
        }
        if (total == 0.0)
            break;
        if (options.effectiveOrder)
            order = n;
        double& precision = s.precisions[n - 1];
        if (correct == 0.0) {
            if (options.smoothing == BleuSmoothing::Exp) {
                smoothMteval *= 2.0;
                precision = 100.0 / (smoothMteval * total);
            } else if (options.smoothing == BleuSmoothing::Floor) {
                precision = 100.0 * value / total;
            }
        } else {
            precision = 100.0 * correct / total;
        }
    }
    double logSum = 0.0;
    for (int n = 0; n < order; ++n)
        logSum += flooredLog(s.precisions[n]);
    s.score = s.brevityPenalty * std::exp(logSum / order);
    return s;
}

BleuScore bleu(const char* metric, const std::vector<std::string>& hypotheses, const Streams& streams,
               const BleuOptions& options) {
    checkShapes(metric, hypotheses.size(), streams);
    if (options.smoothValue && !(std::isfinite(*options.smoothValue) && *options.smoothValue >= 0.0))
        throw InputError(std::string(metric) + ": the smoothing value must be a finite number >= 0, not " +
                         std::to_string(*options.smoothValue));

    BleuScore sums;
    for (std::size_t i = 0; i < hypotheses.size(); ++i) {
        // Several references: each n-gram may match as often as its most frequent reference has it, and the
        // length that counts is the reference length closest to the hypothesis (the shorter on ties).
        WordNgrams refNgrams;
        int64_t closestLen = -1;
        int64_t closestDiff = -1;
        const auto hypTokens =
            bleuTokens(decodeUtf8(hypotheses[i], segmentName(metric, "hypothesis", i, 0, 1)), options);
        const auto hypLen = static_cast<int64_t>(hypTokens.size());
        for (const Text& ref : segmentReferences(metric, streams, i)) {
            const auto refTokens = bleuTokens(ref, options);
            const auto refLen = static_cast<int64_t>(refTokens.size());
            const int64_t diff = std::abs(hypLen - refLen);
            if (closestDiff == -1 || diff < closestDiff) {
                closestDiff = diff;
                closestLen = refLen;
            } else if (diff == closestDiff && refLen < closestLen) {
                closestLen = refLen;
            }
            const WordNgrams ngrams = wordNgrams(refTokens);
            for (int n = 0; n < kBleuOrder; ++n)
                for (const auto& [key, count] : ngrams[n])
                    refNgrams[n][key] = std::max(refNgrams[n][key], count);
        }
        const WordNgrams hypNgrams = wordNgrams(hypTokens);
        for (int n = 0; n < kBleuOrder; ++n) {
            for (const auto& [key, count] : hypNgrams[n]) {
                sums.totals[n] += count;
                const auto hit = refNgrams[n].find(key);
                if (hit != refNgrams[n].end())
                    sums.counts[n] += std::min(count, hit->second);
            }
        }
        sums.hypLen += hypLen;
        sums.refLen += closestLen;
    }
    return scoreBleu(sums, options);
}

// ---- chrF ----

// Counters of character n-grams of orders 1..charOrder. Without whitespace, sacreBLEU glues the
// str.split() pieces together, so n-grams run across word boundaries.
std::vector<Counter> charNgrams(const Text& text, const ChrfOptions& options) {
    Text line;
    if (options.whitespace) {
        line = text;
    } else {
        line.reserve(text.size());
        std::copy_if(text.begin(), text.end(), std::back_inserter(line),
                     [](char32_t c) { return !isPySpace(c); });
    }
    std::vector<Counter> ngrams(static_cast<std::size_t>(options.charOrder));
    for (std::size_t n = 1; n <= ngrams.size(); ++n)
        for (std::size_t i = 0; i + n <= line.size(); ++i)
            ++ngrams[n - 1][line.substr(i, n)];
    return ngrams;
}

// CHRF._get_match_statistics. The hypothesis n-grams of an order the reference lacks are not counted at
// all, so a short reference does not lower the corpus precision of the longer orders.
NgramCounts matchCounts(const Counter& hyp, const Counter& ref) {
    NgramCounts c;
    int64_t hypCount = 0;
    for (const auto& [key, count] : hyp) {
        hypCount += count;
        const auto hit = ref.find(key);
        if (hit != ref.end())
            c.match += std::min(count, hit->second);
    }
    c.hyp = ref.empty() ? 0 : hypCount;
    for (const auto& entry : ref)
        c.ref += entry.second;
    return c;
}

// CHRF._compute_f_score. The default averages precision and recall over the orders where both sides have
// n-grams, then takes one F-beta; eps smoothing instead averages per-order F-beta over all orders.
ChrfScore scoreChrf(const std::vector<NgramCounts>& stats, const ChrfOptions& options) {
    const double eps = 1e-16;
    const double factor = options.beta * options.beta;
    double epsScore = 0.0;
    double avgPrecision = 0.0;
    double avgRecall = 0.0;
    ChrfScore s;
    s.statistics = stats;
    for (const NgramCounts& c : stats) {
        const double precision = c.hyp > 0 ? static_cast<double>(c.match) / static_cast<double>(c.hyp) : eps;
        const double recall = c.ref > 0 ? static_cast<double>(c.match) / static_cast<double>(c.ref) : eps;
        const double denom = factor * precision + recall;
        epsScore += denom > 0 ? (1 + factor) * precision * recall / denom : eps;
        if (c.hyp > 0 && c.ref > 0) {
            avgPrecision += precision;
            avgRecall += recall;
            ++s.effectiveOrder;
        }
    }
    if (s.effectiveOrder > 0) {
        avgPrecision /= s.effectiveOrder;
        avgRecall /= s.effectiveOrder;
    }
    s.precision = 100 * avgPrecision;
    s.recall = 100 * avgRecall;
    if (options.epsSmoothing) {
        s.score = 100 * epsScore / static_cast<double>(stats.size());
    } else if (avgPrecision + avgRecall != 0.0) {
        double f = (1 + factor) * avgPrecision * avgRecall;
        f /= factor * avgPrecision + avgRecall;
        s.score = 100 * f;
    }
    return s;
}

ChrfScore chrf(const char* metric, const std::vector<std::string>& hypotheses, const Streams& streams,
               const ChrfOptions& options) {
    checkShapes(metric, hypotheses.size(), streams);
    if (options.charOrder < 1)
        throw InputError(std::string(metric) + ": the character order must be at least 1, not " +
                         std::to_string(options.charOrder));
    if (!(std::isfinite(options.beta) && options.beta >= 0.0))
        throw InputError(std::string(metric) + ": beta must be a finite number >= 0, not " +
                         std::to_string(options.beta));

    std::vector<NgramCounts> sums(static_cast<std::size_t>(options.charOrder));
    for (std::size_t i = 0; i < hypotheses.size(); ++i) {
        const auto hypNgrams =
            charNgrams(decodeUtf8(hypotheses[i], segmentName(metric, "hypothesis", i, 0, 1)), options);
        // Several references: the segment keeps the statistics of the one with the best chrF (the first on
        // ties).
        std::vector<NgramCounts> best;
        double bestScore = -1.0;
        for (const Text& ref : segmentReferences(metric, streams, i)) {
            const auto refNgrams = charNgrams(ref, options);
            std::vector<NgramCounts> stats(sums.size());
            for (std::size_t n = 0; n < stats.size(); ++n)
                stats[n] = matchCounts(hypNgrams[n], refNgrams[n]);
            const double score = scoreChrf(stats, options).score;
            if (score > bestScore) {
                bestScore = score;
                best = std::move(stats);
            }
        }
        for (std::size_t n = 0; n < sums.size(); ++n) {
            sums[n].hyp += best[n].hyp;
            sums[n].ref += best[n].ref;
            sums[n].match += best[n].match;
        }
    }
    return scoreChrf(sums, options);
}

Streams streamsOf(const std::vector<std::vector<std::string>>& referenceStreams) {
    Streams streams;
    for (const auto& stream : referenceStreams)
        streams.push_back(&stream);
    return streams;
}

} // namespace

BleuScore corpusBleu(const std::vector<std::string>& hypotheses, const std::vector<std::string>& references,
                     const BleuOptions& options) {
    return bleu("corpusBleu", hypotheses, {&references}, options);
}

BleuScore corpusBleuMultiRef(const std::vector<std::string>& hypotheses,
                             const std::vector<std::vector<std::string>>& referenceStreams,
                             const BleuOptions& options) {
    return bleu("corpusBleuMultiRef", hypotheses, streamsOf(referenceStreams), options);
}

ChrfScore corpusChrf(const std::vector<std::string>& hypotheses, const std::vector<std::string>& references,
                     const ChrfOptions& options) {
    return chrf("corpusChrf", hypotheses, {&references}, options);
}

ChrfScore corpusChrfMultiRef(const std::vector<std::string>& hypotheses,
                             const std::vector<std::vector<std::string>>& referenceStreams,
                             const ChrfOptions& options) {
    return chrf("corpusChrfMultiRef", hypotheses, streamsOf(referenceStreams), options);
}

} // namespace core
