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

#include "core/TranslationMetrics.h"

#include "core/Errors.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <iterator>
#include <unordered_map>

namespace core {
namespace {

using Text = std::u32string;
using Counter = std::unordered_map<Text, int64_t>;
using Streams = std::vector<const std::vector<std::string>*>;

constexpr int kBleuOrder = 4;

// What Python's str.isspace() accepts: the characters str.split() splits on and str.rstrip() strips.
bool isPySpace(char32_t c) {
    return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
           c == 0x3000;
}

// Strict, like Python's decoder: overlong forms, surrogates and truncated sequences are errors, because a
// score over mis-decoded text would be silently wrong.
Text decodeUtf8(const std::string& bytes, const std::string& what) {
    Text out;
    out.reserve(bytes.size());
    std::size_t i = 0;
    while (i < bytes.size()) {
        const auto lead = static_cast<unsigned char>(bytes[i]);
        if (lead < 0x80) {
            out.push_back(lead);
            ++i;
            continue;
        }
        std::size_t len = 0;
        char32_t cp = 0;
        char32_t smallest = 0;
        if ((lead & 0xE0) == 0xC0) {
            len = 2;
            cp = lead & 0x1F;
            smallest = 0x80;
        } else if ((lead & 0xF0) == 0xE0) {
            len = 3;
            cp = lead & 0x0F;
            smallest = 0x800;
        } else if ((lead & 0xF8) == 0xF0) {
            len = 4;
            cp = lead & 0x07;
            smallest = 0x10000;
        }
        bool ok = len > 0 && i + len <= bytes.size();
        for (std::size_t k = 1; ok && k < len; ++k) {
            const auto b = static_cast<unsigned char>(bytes[i + k]);
            ok = (b & 0xC0) == 0x80;
            cp = (cp << 6) | (b & 0x3F);
        }
        if (!ok || cp < smallest || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            throw InputError(what + " is not valid UTF-8 (byte " + std::to_string(i) + ")");
        out.push_back(cp);
        i += len;
    }
    return out;
}

std::string encodeUtf8(const Text& text) {
    std::string out;
    out.reserve(text.size());
    for (const char32_t c : text) {
        if (c < 0x80) {
            out.push_back(static_cast<char>(c));
        } else if (c < 0x800) {
            out.push_back(static_cast<char>(0xC0 | (c >> 6)));
            out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
        } else if (c < 0x10000) {
            out.push_back(static_cast<char>(0xE0 | (c >> 12)));
            out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
        } else {
            out.push_back(static_cast<char>(0xF0 | (c >> 18)));
            out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
        }
    }
    return out;
}

// Python's str.split() without arguments.
std::vector<Text> splitWords(const Text& text) {
    std::vector<Text> words;
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && isPySpace(text[i]))
            ++i;
        const std::size_t start = i;
        while (i < text.size() && !isPySpace(text[i]))
            ++i;
        if (i > start)
            words.push_back(text.substr(start, i - start));
    }
    return words;
}

// Python's str.replace(): one left-to-right pass, so "&amp;lt;" becomes "&lt;" and only a later
// replacement turns it into "<".
Text replaceAll(const Text& text, const Text& from, const Text& to) {
    Text out;
    out.reserve(text.size());
    std::size_t i = 0;
    for (std::size_t hit = text.find(from); hit != Text::npos; hit = text.find(from, i)) {
        out.append(text, i, hit - i);
        out += to;
        i = hit + from.size();
    }
    out.append(text, i, Text::npos);
    return out;
}

bool isDigit(char32_t c) {
    return c >= U'0' && c <= U'9';
}
bool isPeriodOrComma(char32_t c) {
    return c == U'.' || c == U',';
}

// The class [\{-\~\[-\` -\&\(-\+\:-\@\/]: ASCII symbols and punctuation except ' , - . (and the space,
// which it also pads, harmlessly).
bool isSplitSymbol(char32_t c) {
    return (c >= 0x7B && c <= 0x7E) || (c >= 0x5B && c <= 0x60) || (c >= 0x20 && c <= 0x26) ||
           (c >= 0x28 && c <= 0x2B) || (c >= 0x3A && c <= 0x40) || c == 0x2F;
}

// re.sub() of a two-character pattern: matches are taken left to right and never overlap, so after a match
// the scan resumes behind its second character ("a.." keeps its last period unsplit by this rule).
template <typename Match, typename Emit> Text substitutePairs(const Text& text, Match match, Emit emit) {
    Text out;
    out.reserve(text.size() + text.size() / 2);
    std::size_t i = 0;
    while (i < text.size()) {
        if (i + 1 < text.size() && match(text[i], text[i + 1])) {
            emit(out, text[i], text[i + 1]);
            i += 2;
        } else {
            out.push_back(text[i++]);
        }
    }
    return out;
}

std::vector<Text> tokens13a(Text line) {
    line = replaceAll(line, U"<skipped>", U"");
    line = replaceAll(line, U"-\n", U"");
    line = replaceAll(line, U"\n", U" ");
    line = replaceAll(line, U"&quot;", U"\"");
    line = replaceAll(line, U"&amp;", U"&");
    line = replaceAll(line, U"&lt;", U"<");
    line = replaceAll(line, U"&gt;", U">");

    Text padded = U" ";
    for (const char32_t c : line) {
        if (isSplitSymbol(c))
            padded += {U' ', c, U' '};
        else
            padded.push_back(c);
    }
    padded.push_back(U' ');
    // A period or comma is split off unless a digit precedes it, then unless a digit follows it: "3,000.50"
    // survives whole, "end." does not. A dash is split off after a digit ("1990-2000").
    padded = substitutePairs(
        padded, [](char32_t a, char32_t b) { return !isDigit(a) && isPeriodOrComma(b); },
        [](Text& out, char32_t a, char32_t b) {
            out += {a, U' ', b, U' '};
        });
    padded = substitutePairs(
        padded, [](char32_t a, char32_t b) { return isPeriodOrComma(a) && !isDigit(b); },
        [](Text& out, char32_t a, char32_t b) {
            out += {U' ', a, U' ', b};
        });
    padded = substitutePairs(
        padded, [](char32_t a, char32_t b) { return isDigit(a) && b == U'-'; },
        [](Text& out, char32_t a, char32_t b) {
            out += {a, U' ', b, U' '};
        });
    return splitWords(padded);
}

Text rstripped(Text text) {
    while (!text.empty() && isPySpace(text.back()))
        text.pop_back();
    return text;
}

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

std::string tokenize13a(const std::string& line) {
    std::string out;
    for (const Text& token : tokens13a(decodeUtf8(line, "tokenize13a: the text"))) {
        if (!out.empty())
            out.push_back(' ');
        out += encodeUtf8(token);
    }
    return out;
}

} // namespace core
