#include "ui/research/AlignmentPage.h"

#include "core/model/Model.h"
#include "core/model/ModelConfig.h"
#include "core/model/ModelDirectory.h"
#include "ui/base/ColorMap.h"
#include "ui/base/LatestJob.h"
#include "ui/base/PlotHelpers.h"
#include "ui/base/QCustomPlotInclude.h"
#include "ui/base/TokenText.h"

#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QSplitter>
#include <QToolTip>
#include <QVBoxLayout>

namespace ui {

namespace {

QString canonical(const QString& dir) {
    const QFileInfo fi(dir);
    return fi.exists() ? fi.canonicalFilePath() : QDir::cleanPath(fi.absoluteFilePath());
}

// A translation model: a source to attend over and tokens to produce. Read from config.json alone, in any
// format the window opens (a Hugging Face Marian folder as well as ours).
bool translates(const QString& dir, core::ModelConfig* out = nullptr) {
    try {
        const auto c = core::ModelDirectory::readConfig(dir.toStdString());
        if (out)
            *out = c;
        return c.twoSided() && c.family != core::Family::AttentionClassifier;
    } catch (const std::exception&) {
        return false; // not a model folder this page can use: the window's own opening says why
    }
}

} // namespace

AlignmentPage::AlignmentPage(QWidget* parent)
    : QWidget(parent), job_(new LatestJob(this)),
      colors_(std::make_unique<ColorMap>(ColorMap::byName(QString()))),
      cache_(std::make_shared<std::map<QString, std::shared_ptr<const core::Model>>>()) {
    setObjectName(QStringLiteral("alignmentPage"));
    auto* col = new QVBoxLayout(this);
    agreement_ = new QLabel(this);
    agreement_->setObjectName(QStringLiteral("agreementLabel"));
    agreement_->setWordWrap(true);
    agreement_->setToolTip(tr("Of the output tokens both models produced (matched by text, in order), the "
                              "share that attend most to the same source token"));
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(buildSide(sides_[0], tr("Left")));
    split->addWidget(buildSide(sides_[1], tr("Right")));
    col->addWidget(agreement_);
    col->addWidget(split, 1);
    connect(job_, &LatestJob::busyChanged, this, [this](bool on) {
        if (on)
            agreement_->setText(tr("translating…"));
    });
}

AlignmentPage::~AlignmentPage() = default;

QWidget* AlignmentPage::buildSide(Side& side, const QString& title) {
    auto* box = new QWidget(this);
    auto* col = new QVBoxLayout(box);
    col->setContentsMargins(0, 0, 0, 0);
    auto* row = new QHBoxLayout;
    side.model = new QComboBox(box);
    side.model->setObjectName(QStringLiteral("alignModel") + title);
    side.model->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    side.model->setToolTip(tr("The translation model on this side"));
    side.layer = new QComboBox(box);
    side.layer->setToolTip(tr("The decoder layer whose cross-attention is shown, or the mean over layers"));
    side.head = new QComboBox(box);
    side.head->setToolTip(tr("The head shown, or the mean over heads"));
    row->addWidget(new QLabel(title, box));
    row->addWidget(side.model);
    row->addWidget(side.layer);
    row->addWidget(side.head);
    row->addStretch(1);
    col->addLayout(row);
    side.caption = new QLabel(box);
    side.caption->setWordWrap(true);
    side.caption->setTextInteractionFlags(Qt::TextSelectableByMouse);
    col->addWidget(side.caption);
    side.plot = makePlot(QString());
    side.plot->setParent(box);
    side.map = makeHeatmap(side.plot, side.scale);
    side.scale->setDataRange(QCPRange(0, 1));
    side.map->setDataRange(QCPRange(0, 1));
    side.map->setGradient(colors_->gradient());
    side.plot->xAxis->setLabel(tr("source"));
    side.plot->yAxis->setLabel(tr("output"));
    for (auto* axis : {side.plot->xAxis, side.plot->yAxis}) {
        axis->grid()->setVisible(false);
        axis->setSubTicks(false);
    }
    side.plot->setMouseTracking(true);
    const int index = &side == &sides_[0] ? 0 : 1;
    // Every token labelled while there is room (1,000 of them overlap: thinned then), at each layout.
    connect(side.plot, &QCustomPlot::afterLayout, this, [this, index] {
        auto& s = sides_[static_cast<std::size_t>(index)];
        if (setTokenTicks(s.plot, s.sourceLabels, s.outputLabels))
            s.plot->replot(QCustomPlot::rpQueuedReplot);
    });
    connect(side.plot, &QCustomPlot::mouseMove, this, [this, index](QMouseEvent* e) {
        const auto& a = shown_[static_cast<std::size_t>(index)];
        auto* p = sides_[static_cast<std::size_t>(index)].plot;
        const int j = static_cast<int>(std::lround(p->xAxis->pixelToCoord(e->position().x())));
        const int q = static_cast<int>(std::lround(p->yAxis->pixelToCoord(e->position().y())));
        if (q < 0 || q >= a.weights.rows || j < 0 || j >= a.weights.cols)
            return QToolTip::hideText();
        QToolTip::showText(e->globalPosition().toPoint(),
                           tr("output %1 \u2192 source %2: %3")
                               .arg(tokenDisplayText(a.outputs[static_cast<std::size_t>(q)]),
                                    tokenDisplayText(a.source[static_cast<std::size_t>(j)]))
                               .arg(a.weights.at(q, j), 0, 'f', 3),
                           p);
    });
    col->addWidget(side.plot, 1);
    connect(side.model, qOverload<int>(&QComboBox::activated), this, [this, &side] {
        offerHeads(side);
        request();
    });
    for (auto* c : {side.layer, side.head})
        connect(c, qOverload<int>(&QComboBox::activated), this, [this] { request(); });
    return box;
}

void AlignmentPage::setModelsDirectory(const QString& dir) {
    if (dir.isEmpty())
        return; // no built-in models found: only the window's own model is offered
    const QDir root(dir);
    QString gru, transformer;
    for (const auto& name : root.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
        const QString path = canonical(root.filePath(name));
        core::ModelConfig c;
        if (!translates(path, &c))
            continue;
        for (auto& s : sides_)
            if (s.model->findData(path) < 0)
                s.model->addItem(name, path);
        // The pair the page is for: the seed's GRU beside the Transformer trained on the same corpus.
        if (c.family == core::Family::GruAttention && gru.isEmpty())
            gru = path;
        if (c.family == core::Family::Transformer &&
            (transformer.isEmpty() || name == QLatin1String("en-es")))
            transformer = path;
    }
    if (!gru.isEmpty())
        chooseModel(0, gru);
    if (!transformer.isEmpty())
        chooseModel(1, transformer);
}

void AlignmentPage::setCurrentModel(const QString& dir) {
    const QString path = canonical(dir);
    if (path.isEmpty() || !translates(path) || sides_[0].model->findData(path) >= 0)
        return;
    for (auto& s : sides_)
        s.model->addItem(QFileInfo(path).fileName(), path);
}

bool AlignmentPage::chooseModel(int index, const QString& dir) {
    auto& side = sides_[static_cast<std::size_t>(index)];
    const int i = side.model->findData(canonical(dir));
    if (i < 0)
        return false;
    side.model->setCurrentIndex(i);
    offerHeads(side);
    request();
    return true;
}

void AlignmentPage::chooseHead(int index, int layer, int head) {
    auto& side = sides_[static_cast<std::size_t>(index)];
    side.layer->setCurrentIndex(std::max(0, side.layer->findData(layer)));
    side.head->setCurrentIndex(std::max(0, side.head->findData(head)));
    request();
}

void AlignmentPage::offerHeads(Side& side) {
    core::ModelConfig c;
    const bool ok = translates(side.model->currentData().toString(), &c);
    // A GRU has one map: nothing to choose.
    const bool choose = ok && !c.recurrent();
    for (auto [combo, count, what] : {std::tuple{side.layer, c.decoderLayers, tr("layer %1")},
                                      std::tuple{side.head, c.heads, tr("head %1")}}) {
        // The mean until a layer or head is chosen: no one head stands for a model.
        const int keep = combo->count() > 0 ? combo->currentData().toInt() : -1;
        combo->clear();
        combo->addItem(combo == side.layer ? tr("mean of layers") : tr("mean of heads"), -1);
        for (int i = 0; choose && i < count; ++i)
            combo->addItem(what.arg(i), i);
        combo->setCurrentIndex(std::max(0, combo->findData(keep)));
        combo->setVisible(choose);
    }
}

void AlignmentPage::setText(const QString& text) {
    text_ = text;
    request();
}

void AlignmentPage::setColorMap(const ColorMap& map) {
    *colors_ = map;
    for (auto& s : sides_) {
        s.map->setGradient(map.gradient());
        s.plot->replot();
    }
}

bool AlignmentPage::busy() const {
    return job_->busy();
}

void AlignmentPage::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    request(); // typing on another page asked for nothing
}

void AlignmentPage::request() {
    if (!isVisible())
        return;
    struct Ask {
        QString dir;
        QString key; // the folder and when its weights were written: a folder saved again is loaded again
        int layer, head;
    };
    std::array<Ask, 2> asks;
    for (std::size_t i = 0; i < 2; ++i) {
        const QString dir = sides_[i].model->currentData().toString();
        const auto written = QFileInfo(dir + QStringLiteral("/model.safetensors")).lastModified();
        asks[i] = {dir, dir + QLatin1Char('@') + QString::number(written.toMSecsSinceEpoch()),
                   sides_[i].layer->currentData().toInt(), sides_[i].head->currentData().toInt()};
    }
    const std::string text = text_.trimmed().toStdString();
    if (text.empty() || asks[0].dir.isEmpty() || asks[1].dir.isEmpty()) {
        job_->forget();
        agreement_->setText(text.empty()
                                ? tr("Type a sentence above to see how the two models align it.")
                                : tr("Two translation models are needed (a folder with a source side)."));
        return;
    }
    job_->start(
        [asks, text, cache = cache_] {
            std::array<core::Alignment, 2> out;
            if (cache->size() > 4)
                cache->clear(); // a few models at most stay loaded
            for (std::size_t i = 0; i < 2; ++i) {
                auto& model = (*cache)[asks[i].key];
                if (!model)
                    model = core::Model::load(asks[i].dir.toStdString());
                out[i] = core::alignmentOf(model, text, asks[i].layer, asks[i].head);
            }
            return out;
        },
        [this](std::array<core::Alignment, 2> result, const QString& error) {
            if (!error.isEmpty()) {
                agreement_->setText(tr("Could not align: %1").arg(error));
                Q_EMIT updated();
                return;
            }
            shown_ = std::move(result);
            for (std::size_t i = 0; i < 2; ++i)
                draw(sides_[i], shown_[i]);
            agreementValue_ = core::argmaxAgreement(shown_[0], shown_[1]);
            agreement_->setText(agreementText());
            Q_EMIT updated();
        });
}

QString AlignmentPage::agreementText() const {
    if (shown_[0].model.empty())
        return {};
    if (agreementValue_ < 0)
        return tr("The two translations share no output token, or read the source as different tokens.");
    return tr("Of the output tokens both produced, %1% attend most to the same source token.")
        .arg(std::lround(100.0 * agreementValue_));
}

void AlignmentPage::draw(Side& side, const core::Alignment& a) {
    const QString which =
        a.layers == 1 && a.heads == 1
            ? tr("its one alignment")
            : tr("cross-attention, %1, %2")
                  .arg(a.layer < 0 ? tr("mean of %1 layers").arg(a.layers) : tr("layer %1").arg(a.layer),
                       a.head < 0 ? tr("mean of %1 heads").arg(a.heads) : tr("head %1").arg(a.head));
    side.caption->setText(tr("<b>%1</b> (%2), %3<br>%4")
                              .arg(QString::fromStdString(a.model).toHtmlEscaped(),
                                   QString::fromStdString(a.shape).toHtmlEscaped(), which,
                                   QString::fromStdString(a.translation).toHtmlEscaped()));
    const int rows = a.weights.rows, cols = a.weights.cols;
    side.map->data()->setSize(std::max(cols, 1), std::max(rows, 1));
    side.map->data()->setRange(QCPRange(0, std::max(cols - 1, 0)), QCPRange(0, std::max(rows - 1, 0)));
    for (int q = 0; q < rows; ++q)
        for (int j = 0; j < cols; ++j)
            side.map->data()->setCell(j, q, a.weights.at(q, j));
    side.sourceLabels.clear();
    side.outputLabels.clear();
    for (int j = 0; j < cols; ++j)
        side.sourceLabels << tokenDisplayText(a.source[static_cast<std::size_t>(j)]);
    for (int q = 0; q < rows; ++q)
        side.outputLabels << tokenDisplayText(a.outputs[static_cast<std::size_t>(q)]);
    side.plot->xAxis->setRange(-0.5, cols - 0.5);
    side.plot->yAxis->setRange(-0.5, rows - 0.5);
    setTokenTicks(side.plot, side.sourceLabels, side.outputLabels);
    side.plot->replot();
}

} // namespace ui
