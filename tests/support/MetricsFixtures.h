#pragma once
// Inputs of the translation-metric tests: sacreBLEU's test corpora and option builders named as the
// sacreBLEU calls they stand for.

#include "core/analysis/TranslationMetrics.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <optional>
#include <string>
#include <vector>

namespace metrics_fixtures {

using namespace core;

inline std::vector<std::string> utf8(const QStringList& list) {
    std::vector<std::string> out;
    for (const QString& s : list)
        out.push_back(s.toStdString());
    return out;
}

inline std::vector<std::vector<std::string>> utf8(const QList<QStringList>& streams) {
    std::vector<std::vector<std::string>> out;
    for (const QStringList& stream : streams)
        out.push_back(utf8(stream));
    return out;
}

inline BleuOptions bleuOptions(BleuSmoothing smoothing, std::optional<double> value = {},
                               bool tokenize13a = true, bool effectiveOrder = false) {
    BleuOptions o;
    o.smoothing = smoothing;
    o.smoothValue = value;
    o.tokenize13a = tokenize13a;
    o.effectiveOrder = effectiveOrder;
    return o;
}

// sacrebleu.raw_corpus_bleu: no tokenization, floor smoothing, effective order.
inline BleuOptions rawCorpusBleu(std::optional<double> floor) {
    return bleuOptions(BleuSmoothing::Floor, floor, false, true);
}

// test_sentence_bleu.py builds BLEU(..., effective_order=True) for every case.
inline BleuOptions sentenceBleu(BleuSmoothing smoothing, std::optional<double> value = {},
                                bool tokenize13a = true) {
    return bleuOptions(smoothing, value, tokenize13a, true);
}

inline ChrfOptions chrfOptions(double beta, bool epsSmoothing, bool whitespace = false) {
    ChrfOptions o;
    o.beta = beta;
    o.epsSmoothing = epsSmoothing;
    o.whitespace = whitespace;
    return o;
}

// The README / test_bleu.py corpus: three hypotheses, two reference streams.
inline const QStringList kHyps{"The dog bit the man.", "It wasn't surprising.",
                               "The man had just bitten him."};
inline const QList<QStringList> kRefs{
    {"The dog bit the man.", "It was not unexpected.", "The man bit him first."},
    {"The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."}};

// test_sentence_bleu.py's example from sacreBLEU issue #98 (Romanian, with ţ/ț and ă).
inline const QString kRoRef = QStringLiteral("producţia de zahăr brut se exprimă în zahăr alb;");
inline const QString kRoSys =
    QStringLiteral("Producția de zahăr primă va fi exprimată în ceea ce privește zahărul alb;");

inline const QString kRiskHyp = QStringLiteral(
    "risk assessment must be made of those who are qualified and expertise in the sector - these are the "
    "scientists .");
inline const QString kRiskRef = QStringLiteral(
    "risk assessment has to be undertaken by those who are qualified and expert in that area - that is the "
    "scientists .");
inline const QString kDasRef =
    QStringLiteral("Das Verhältnis zwischen Obama und Netanyahu ist nicht gerade freundschaftlich.");

inline const QStringList kEsHyps{QStringLiteral("El niño comió una manzana."),
                                 QStringLiteral("Mañana será otro día, señor.")};
inline const QStringList kEsRefs{QStringLiteral("El niño se comió la manzana."),
                                 QStringLiteral("Mañana es otro día, señor.")};

} // namespace metrics_fixtures
