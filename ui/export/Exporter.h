#pragma once
// Writes what the window shows to files other programs open: pictures (PNG at a chosen scale, SVG, PDF)
// and numbers (CSV, and JSON in the dump format). Every write is atomic: a failure leaves no half file
// and the error names the path and the reason.

#include "core/analysis/Attribution.h"
#include "core/analysis/LogitLens.h"
#include "core/run/AttentionSnapshot.h"
#include "core/run/InsideRow.h"
#include "core/run/Sampler.h"
#include "ui/run/RunResult.h"

#include <QString>

class QWidget;

namespace ui {

class Exporter {
public:
    /// The format follows the suffix: .png, .svg or .pdf. `scale` multiplies the PNG's pixel size.
    /// QCustomPlot children are drawn as vectors in SVG and PDF (and sharp in a scaled PNG).
    static bool savePicture(QWidget* view, const QString& path, double scale, QString* error);
    /// One head (head core::kMeanHead: the layer's mean) as a CSV matrix.
    static bool saveHeadCsv(const core::AttentionSnapshot& snap, core::AttentionKind kind, int layer,
                            int head, const QString& path, QString* error);
    /// Every head of one kind as long-form CSV.
    static bool saveKindCsv(const core::AttentionSnapshot& snap, core::AttentionKind kind,
                            const QString& path, QString* error);
    /// One head in the dump format: its block has shape [1][1][queries][keys], and a "selection" member
    /// says which layer and head it is. `run` (runFields) adds what reproduces it.
    static bool saveHeadJson(const core::AttentionSnapshot& snap, core::AttentionKind kind, int layer,
                             int head, const QString& srcText, const QString& tgtText, const QString& path,
                             QString* error, const QString& run = {});
    /// Every head of one kind in the dump format (the other kinds left out), with each layer's mean over
    /// the heads ("layer_mean").
    static bool saveKindJson(const core::AttentionSnapshot& snap, core::AttentionKind kind,
                             const QString& srcText, const QString& tgtText, const QString& path,
                             QString* error, const QString& run = {});
    /// The members that reproduce a result (core::runFields): the model's folder and the SHA-256 of its
    /// weights, the decode settings, the step, and the vocabulary behind next_token_logprobs.
    static QString runFields(const RunResult& result, const core::SamplingSettings& sampling);
    /// One opened row of the Inside page and its sampling pipeline, in the format of `attnscope explain`.
    static bool saveInsideJson(const core::InsideRow& row, const core::SamplingPipeline& pipeline,
                               const QString& modelName, const QString& path, QString* error);
    /// The logit lens, or the direct logit attribution of one position, in the schema of `attnscope lens`
    /// and `attnscope attribute`.
    static bool saveLensJson(const core::LogitLens& lens, const QString& modelName, const QString& path,
                             QString* error);
    static bool saveAttributionJson(const core::Attribution& attribution, const core::Vocabulary& vocab,
                                    const QString& modelName, const QString& path, QString* error);
    /// Writes bytes atomically; false with a message on failure.
    static bool writeBytes(const QString& path, const QByteArray& bytes, QString* error);
};

} // namespace ui
