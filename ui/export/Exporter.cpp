#include "ui/export/Exporter.h"

#include "core/analysis/AttentionStats.h"
#include "core/analysis/LensJson.h"
#include "core/base/Errors.h"
#include "core/base/Files.h"
#include "core/model/Model.h"
#include "core/run/InsideJson.h"
#include "core/run/SnapshotCsv.h"
#include "core/run/SnapshotJson.h"
#include "ui/base/QCustomPlotInclude.h"
#include "ui/run/ModelFingerprint.h"
#include "ui/views/AttentionGrid.h"

#include <QBuffer>
#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <QWidget>

#include <atomic>
#include <sstream>

namespace ui {

namespace {

void setError(QString* error, const QString& message) {
    if (error)
        *error = message;
}

// Draws the widget, then each visible QCustomPlot inside it again through QCustomPlot's own painter path,
// so plots come out as vectors (the widget's own paint only blits the plot's pixel buffer). The painter is
// a QCPPainter from the start because QCustomPlot draws only through one.
void paintView(QWidget* view, QCPPainter& p, bool vector) {
    if (vector)
        p.setMode(QCPPainter::pmVectorized);
    for (auto* grid : view->findChildren<AttentionGrid*>())
        grid->poolAll(); // a picture gets every tile, not the blanks of a grid still pooling
    if (auto* grid = qobject_cast<AttentionGrid*>(view))
        grid->poolAll();
    view->render(&p, QPoint(), QRegion(), QWidget::DrawChildren);
    QList<QCustomPlot*> plots = view->findChildren<QCustomPlot*>();
    if (auto* self = qobject_cast<QCustomPlot*>(view))
        plots.prepend(self);
    for (auto* plot : plots) {
        if (plot != view && !plot->isVisibleTo(view))
            continue;
        // A plot partly scrolled out of a scroll area keeps the pixels render() drew, clipped at the area's
        // edge: QCustomPlot sets its own clip rectangles while it draws, so it would spill over its
        // neighbours.
        if (plot != view && plot->visibleRegion() != QRegion(plot->rect()))
            continue;
        p.save();
        p.translate(plot->mapTo(view, QPoint(0, 0)));
        p.setClipRect(QRect(QPoint(0, 0), plot->size()));
        p.fillRect(QRect(QPoint(0, 0), plot->size()), Qt::white);
        plot->toPainter(&p, plot->width(), plot->height());
        p.restore();
    }
    // Widgets laid over a plot (a lesson's frame around a cell) would be under it now: drawn again on top.
    for (auto* overlay : view->findChildren<QWidget*>())
        if (overlay->property("overlay").toBool() && overlay->isVisibleTo(view))
            overlay->render(&p, overlay->mapTo(view, QPoint(0, 0)), QRegion(), QWidget::RenderFlags());
}

// Qt reports an allocation that failed while drawing only on the console ("QImage: out of memory, returning
// null image", then "Painter not active" for each thing it did not draw) and carries on: the picture comes
// out with plots missing. Watched while a picture is drawn, so such a picture is refused, not written.
class PaintFailureWatch {
public:
    PaintFailureWatch() {
        failed() = false;
        previous() = qInstallMessageHandler(&PaintFailureWatch::handle);
    }
    ~PaintFailureWatch() { qInstallMessageHandler(previous()); }
    PaintFailureWatch(const PaintFailureWatch&) = delete;
    PaintFailureWatch& operator=(const PaintFailureWatch&) = delete;
    bool failedToDraw() const { return failed(); }

private:
    static std::atomic<bool>& failed() {
        static std::atomic<bool> f{false};
        return f;
    }
    static QtMessageHandler& previous() {
        static QtMessageHandler h = nullptr;
        return h;
    }
    static void handle(QtMsgType type, const QMessageLogContext& context, const QString& message) {
        if (message.contains(QLatin1String("out of memory")) ||
            message.contains(QLatin1String("not active")) ||
            message.startsWith(QLatin1String("QPainter::begin")))
            failed() = true;
        previous()(type, context, message);
    }
};

QByteArray pictureBytes(QWidget* view, const QString& suffix, double scale, QString* error) {
    const PaintFailureWatch watch;
    const auto drawnWhole = [&] {
        if (!watch.failedToDraw())
            return true;
        const QSize px = (QSizeF(view->size()) * scale).toSize();
        setError(error, QObject::tr("not enough memory to draw a picture of %1 × %2: nothing was written")
                            .arg(px.width())
                            .arg(px.height()));
        return false;
    };
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    const QSize size = view->size();
    if (suffix == QLatin1String("png")) {
        const QSize px = (QSizeF(size) * scale).toSize();
        if (px.width() <= 0 || px.height() <= 0 || qint64(px.width()) * px.height() > 400'000'000) {
            setError(
                error,
                QObject::tr("a picture of %1 × %2 pixels is too large").arg(px.width()).arg(px.height()));
            return {};
        }
        QImage image(px, QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::white);
        {
            QCPPainter p(&image);
            p.setRenderHint(QPainter::Antialiasing);
            p.setRenderHint(QPainter::TextAntialiasing);
            p.scale(scale, scale);
            paintView(view, p, false);
        }
        if (!drawnWhole())
            return {};
        if (!image.save(&buffer, "PNG")) {
            setError(error, QObject::tr("could not encode the PNG"));
            return {};
        }
    } else if (suffix == QLatin1String("svg")) {
        QSvgGenerator gen;
        gen.setOutputDevice(&buffer);
        gen.setSize(size);
        gen.setViewBox(QRect(QPoint(0, 0), size));
        gen.setTitle(QStringLiteral("attnscope"));
        QCPPainter p(&gen);
        paintView(view, p, true);
    } else if (suffix == QLatin1String("pdf")) {
        QPdfWriter pdf(&buffer);
        pdf.setCreator(QStringLiteral("attnscope"));
        pdf.setResolution(96);
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        pdf.setPageSize(QPageSize(QSizeF(size) * 72.0 / 96.0, QPageSize::Point));
        QCPPainter p(&pdf);
        // Without it Qt stores every image (each heatmap is one) as JPEG, blurring cell edges.
        p.setRenderHint(QPainter::LosslessImageRendering);
        paintView(view, p, true);
    } else {
        setError(error, QObject::tr("unknown picture format '%1': use .png, .svg or .pdf").arg(suffix));
        return {};
    }
    return drawnWhole() ? bytes : QByteArray();
}

bool writeStream(const QString& path, const std::ostringstream& out, QString* error) {
    return Exporter::writeBytes(path, QByteArray::fromStdString(out.str()), error);
}

core::AttentionSnapshot onlyKind(const core::AttentionSnapshot& snap, core::AttentionKind kind) {
    core::AttentionSnapshot s;
    s.modelName = snap.modelName;
    s.srcTokens = snap.srcTokens;
    s.tgtTokens = snap.tgtTokens;
    s.nextTokenLogProbs = snap.nextTokenLogProbs;
    s.decodes = snap.decodes;
    s.maskRow = snap.maskRow;
    s.kvHeads = snap.kvHeads;
    s.textTokens = snap.textTokens;
    s.readTokens = snap.readTokens;
    s.maxLen = snap.maxLen;
    s.forced = snap.forced;
    s.encodeMs = snap.encodeMs;
    s.decodeMs = snap.decodeMs;
    s.block(kind) = snap.block(kind);
    return s;
}

} // namespace

bool Exporter::writeBytes(const QString& path, const QByteArray& bytes, QString* error) {
    try {
        core::writeFileAtomically(QFileInfo(path).absoluteFilePath().toStdString(), bytes.toStdString());
        return true;
    } catch (const core::Error& e) {
        setError(error, QString::fromStdString(e.what()));
        return false;
    }
}

bool Exporter::savePicture(QWidget* view, const QString& path, double scale, QString* error) {
    if (!view) {
        setError(error, QObject::tr("nothing to export"));
        return false;
    }
    if (!(scale > 0.0 && scale <= 16.0)) {
        setError(error, QObject::tr("scale %1 is outside 0–16").arg(scale));
        return false;
    }
    const auto bytes = pictureBytes(view, QFileInfo(path).suffix().toLower(), scale, error);
    return !bytes.isEmpty() && writeBytes(path, bytes, error);
}

bool Exporter::saveHeadCsv(const core::AttentionSnapshot& snap, core::AttentionKind kind, int layer, int head,
                           const QString& path, QString* error) {
    std::ostringstream out;
    try {
        core::writeHeadCsv(out, snap, kind, layer, head);
    } catch (const core::Error& e) {
        setError(error, QString::fromStdString(e.what()));
        return false;
    }
    return writeStream(path, out, error);
}

bool Exporter::saveKindCsv(const core::AttentionSnapshot& snap, core::AttentionKind kind, const QString& path,
                           QString* error) {
    std::ostringstream out;
    try {
        core::writeKindCsv(out, snap, kind);
    } catch (const core::Error& e) {
        setError(error, QString::fromStdString(e.what()));
        return false;
    }
    return writeStream(path, out, error);
}

bool Exporter::saveHeadJson(const core::AttentionSnapshot& snap, core::AttentionKind kind, int layer,
                            int head, const QString& srcText, const QString& tgtText, const QString& path,
                            QString* error, const QString& run) {
    const auto& b = snap.block(kind);
    if (b.empty() || layer < 0 || layer >= b.layers || head < core::kMeanHead || head >= b.heads) {
        setError(error, QObject::tr("no %1 attention at layer %2, head %3")
                            .arg(QString::fromLatin1(core::toString(kind)))
                            .arg(layer)
                            .arg(head));
        return false;
    }
    auto s = onlyKind(snap, kind);
    core::AttentionBlock one;
    one.resize(1, 1, b.queries, b.keys);
    if (head != core::kMeanHead) {
        std::vector<float> scratch;
        const float* w = b.head(layer, head, scratch);
        one.data.assign(w, w + one.data.size());
    } else
        one.data = core::meanOverHeads(b, layer);
    s.block(kind) = std::move(one);
    const auto selection =
        QStringLiteral("\"selection\": {\"kind\": \"%1\", \"layer\": %2, \"head\": %3}")
            .arg(QString::fromLatin1(core::toString(kind)))
            .arg(layer)
            .arg(head == core::kMeanHead ? QStringLiteral("\"mean\"") : QString::number(head));
    std::ostringstream out;
    const QString extra = run.isEmpty() ? selection : selection + QStringLiteral(",\n") + run;
    core::writeSnapshotJson(out, s, srcText.toStdString(), tgtText.toStdString(), extra.toStdString());
    return writeStream(path, out, error);
}

bool Exporter::saveKindJson(const core::AttentionSnapshot& snap, core::AttentionKind kind,
                            const QString& srcText, const QString& tgtText, const QString& path,
                            QString* error, const QString& run) {
    if (snap.block(kind).empty()) {
        setError(error,
                 QObject::tr("this run has no %1 attention").arg(QString::fromLatin1(core::toString(kind))));
        return false;
    }
    std::ostringstream out;
    std::string extra = core::layerMeanField(kind, snap.block(kind));
    if (!run.isEmpty())
        extra += ",\n" + run.toStdString();
    core::writeSnapshotJson(out, onlyKind(snap, kind), srcText.toStdString(), tgtText.toStdString(), extra);
    return writeStream(path, out, error);
}

QString Exporter::runFields(const RunResult& result, const core::SamplingSettings& sampling) {
    if (!result.model)
        return {};
    core::RunInfo info;
    info.modelDir = result.model->directory();
    info.weightsSha256 = ModelFingerprint::weightsSha256(*result.model).toStdString();
    info.sampling = sampling;
    info.step = result.step;
    return QString::fromStdString(core::runFields(info, result.model->targetTokenizer().vocab()));
}

bool Exporter::saveInsideJson(const core::InsideRow& row, const core::SamplingPipeline& pipeline,
                              const QString& modelName, const QString& path, QString* error) {
    std::ostringstream out;
    core::writeInsideJson(out, modelName.toStdString(), row, pipeline);
    return writeStream(path, out, error);
}

bool Exporter::saveLensJson(const core::LogitLens& lens, const QString& modelName, const QString& path,
                            QString* error) {
    std::ostringstream out;
    core::writeLensJson(out, modelName.toStdString(), lens);
    return writeStream(path, out, error);
}

bool Exporter::saveAttributionJson(const core::Attribution& attribution, const core::Vocabulary& vocab,
                                   const QString& modelName, const QString& path, QString* error) {
    std::ostringstream out;
    core::writeAttributionJson(out, modelName.toStdString(), attribution, vocab);
    return writeStream(path, out, error);
}

} // namespace ui
