#pragma once
// Corpus BLEU and chrF exactly as sacreBLEU 2.x computes them, so a score printed here can be set beside
// the numbers papers report. The defaults are sacreBLEU's defaults: BLEU with the 13a tokenizer, 4-grams,
// exp smoothing, mixed case; chrF with character 6-grams, no word n-grams, beta 2, whitespace left out,
// effective-order averaging. Text is UTF-8; chrF counts Unicode code points, not bytes.
//
// Two deliberate departures, both where sacreBLEU would raise instead of scoring: a segment whose only
// reference is "" is scored against an empty reference, and an empty corpus scores 0.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace core {

/// How BLEU treats an n-gram order without matches (sacreBLEU's smooth_method).
enum class BleuSmoothing {
    None,  ///< no smoothing: one order without matches makes BLEU 0
    Floor, ///< an order without matches counts smoothValue matches (default 0.1)
    AddK,  ///< orders 2..4 get smoothValue added to matches and totals (default 1)
    Exp,   ///< mteval-v13a: the k-th order without matches gets precision 1 / (2^k · totals)
};

/// BLEU settings; every default is sacreBLEU's.
struct BleuOptions {
    bool tokenize13a = true;                      ///< mteval-v13a tokenizer; false: whitespace split only
    BleuSmoothing smoothing = BleuSmoothing::Exp; ///< smooth_method
    std::optional<double> smoothValue;            ///< floor / add-k value; empty: the method's default
    bool effectiveOrder = false; ///< average only the orders the hypotheses have (for sentence BLEU)
};

/// Corpus BLEU with its sufficient statistics: the numbers of sacreBLEU's verbose line.
struct BleuScore {
    double score = 0.0;                 ///< BLEU, 0–100
    std::array<double, 4> precisions{}; ///< n-gram precisions after smoothing, 0–100; all 0 without matches
    std::array<int64_t, 4> counts{};    ///< matched n-grams per order, clipped by the reference counts
    std::array<int64_t, 4> totals{};    ///< hypothesis n-grams per order
    double brevityPenalty = 0.0;        ///< exp(1 − refLen/hypLen) when hypLen < refLen, else 1
    double ratio = 0.0;                 ///< hypLen / refLen; 0 when refLen is 0
    int64_t hypLen = 0;                 ///< tokens of all hypotheses
    int64_t refLen = 0;                 ///< tokens of each segment's closest reference, summed
};

/// chrF settings; every default is sacreBLEU's.
struct ChrfOptions {
    int charOrder = 6;       ///< longest character n-gram, at least 1
    double beta = 2.0;       ///< recall counts beta times as much as precision
    bool whitespace = false; ///< keep whitespace inside character n-grams
    /// chrF++.py / Moses / NLTK averaging: the mean F over all orders instead of effective-order averaging.
    bool epsSmoothing = false;
};

/// Character n-grams of one order, summed over the corpus.
struct NgramCounts {
    int64_t hyp = 0;   ///< hypothesis n-grams (0 for segments whose reference has none of this order)
    int64_t ref = 0;   ///< reference n-grams
    int64_t match = 0; ///< n-grams in both, clipped by the smaller count
};

/// Corpus chrF with its statistics.
struct ChrfScore {
    double score = 0.0;                  ///< chrF, 0–100
    double precision = 0.0;              ///< n-gram precision averaged over the effective orders, 0–100
    double recall = 0.0;                 ///< n-gram recall averaged over the effective orders, 0–100
    int effectiveOrder = 0;              ///< orders where both sides have n-grams
    std::vector<NgramCounts> statistics; ///< one entry per order n = 1..charOrder
};

/// Corpus BLEU of hypotheses against one reference each. Throws InputError when the sizes differ, when a
/// string is not valid UTF-8, or when the options are out of range.
BleuScore corpusBleu(const std::vector<std::string>& hypotheses, const std::vector<std::string>& references,
                     const BleuOptions& options = {});

/// Corpus BLEU against several reference streams, each as long as hypotheses (sacreBLEU's `refs` shape).
/// A segment's "" references are left out, so segments may have different numbers of references.
BleuScore corpusBleuMultiRef(const std::vector<std::string>& hypotheses,
                             const std::vector<std::vector<std::string>>& referenceStreams,
                             const BleuOptions& options = {});

/// Corpus chrF of hypotheses against one reference each. Throws like corpusBleu.
ChrfScore corpusChrf(const std::vector<std::string>& hypotheses, const std::vector<std::string>& references,
                     const ChrfOptions& options = {});

/// Corpus chrF against several reference streams; each segment keeps the reference with the best chrF.
ChrfScore corpusChrfMultiRef(const std::vector<std::string>& hypotheses,
                             const std::vector<std::vector<std::string>>& referenceStreams,
                             const ChrfOptions& options = {});

} // namespace core
