#include "ui/research/LensPage.h"

#include "core/model/Model.h"
#include "ui/base/AttentionText.h"
#include "ui/base/LatestJob.h"
#include "ui/base/QCustomPlotInclude.h"
#include "ui/base/TokenText.h"
#include "ui/research/AttributionPanel.h"
#include "ui/research/LensDepthChart.h"
#include "ui/views/MatrixChart.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QSplitter>
#include <QVBoxLayout>

#include <cmath>

namespace ui {

namespace {

// The side the lens reads: the decoder's, or an encoder-only model's own.
const core::Tokenizer& readSide(const core::Model& model) {
    return model.config().hasDecoder() ? model.targetTokenizer() : model.sourceTokenizer();
}

QString candidateText(int64_t id, const std::string& token) {
    return tokenDisplayText(core::Token{id, token});
}

} // namespace

LensPage::LensPage(QWidget* parent) : QWidget(parent), job_(new LatestJob(this)) {
    auto* col = new QVBoxLayout(this);
    auto* bar = new QHBoxLayout;
    colour_ = new QComboBox(this);
    colour_->setObjectName(QStringLiteral("lensColour"));
    colour_->addItem(tr("Probability"), static_cast<int>(Colour::Probability));
    colour_->addItem(tr("Rank"), static_cast<int>(Colour::Rank));
    colour_->addItem(tr("Entropy"), static_cast<int>(Colour::Entropy));
    colour_->setToolTip(tr("Colour each cell by the followed token's probability there, its rank among every "
                           "token (1 is the top), or the reading's entropy (how spread it is, in nats)"));
    token_ = new QLineEdit(this);
    token_->setObjectName(QStringLiteral("lensToken"));
    token_->setPlaceholderText(tr("the model's next token"));
    token_->setClearButtonEnabled(true);
    token_->setToolTip(tr("Follow one token at every position: type it as the model writes it (GPT-2's "
                          "tokens inside a sentence begin with a space) or #id, then Enter; empty follows "
                          "the token the model produces next at each position"));
    status_ = new QLabel(this);
    status_->setObjectName(QStringLiteral("lensStatus"));
    status_->setWordWrap(true);
    auto* colourLabel = new QLabel(tr("Colo&ur by"), this);
    colourLabel->setBuddy(colour_);
    auto* tokenLabel = new QLabel(tr("F&ollow"), this);
    tokenLabel->setBuddy(token_);
    bar->addWidget(colourLabel);
    bar->addWidget(colour_);
    bar->addWidget(tokenLabel);
    bar->addWidget(token_);
    col->addLayout(bar);
    col->addWidget(status_);

    auto* split = new QSplitter(Qt::Vertical, this);
    chart_ = new MatrixChart(tr("Logit lens"), split);
    chart_->setObjectName(QStringLiteral("lensChart"));
    chart_->plot()->setFocusPolicy(Qt::StrongFocus);
    chart_->plot()->installEventFilter(this);
    chart_->setTipText([this](int row, int c) { return cellTip(pointOfRow(row), c); });
    auto* below = new QSplitter(Qt::Horizontal, split);
    depth_ = new LensDepthChart(below);
    attribution_ = new AttributionPanel(below);
    below->addWidget(depth_);
    below->addWidget(attribution_);
    below->setStretchFactor(0, 2);
    below->setStretchFactor(1, 3);
    split->addWidget(chart_);
    split->addWidget(below);
    split->setCollapsible(1, false);
    // The map reads with 20 px rows; the depth chart and the attribution need about 250 px below it.
    below->setMinimumHeight(250);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    col->addWidget(split, 1);
    body_ = split;

    connect(colour_, qOverload<int>(&QComboBox::currentIndexChanged), this, [this] { display(); });
    connect(token_, &QLineEdit::returnPressed, this, [this] { followToken(token_->text()); });
    connect(token_, &QLineEdit::textChanged, this, [this](const QString& t) {
        if (t.isEmpty()) // the clear button: back to the model's own next token
            followToken(t);
    });
    connect(chart_, &MatrixChart::hovered, this, [this](int, int c) {
        if (c >= 0)
            depth_->setPosition(c);
    });
    connect(attribution_, &AttributionPanel::headChosen, this, &LensPage::attentionChosen);
    connect(chart_, &MatrixChart::clicked, this, [this](int row, int c) {
        select(pointOfRow(row), c);
        openSelected();
    });
    clear();
}

LensPage::~LensPage() {
    // The job reads the result it was given, nothing of the page; it must end before the page does.
    delete job_;
    job_ = nullptr;
}

void LensPage::clear() {
    job_->forget();
    result_.reset();
    computedFor_.reset();
    shown_ = core::LogitLens{};
    selected_ = {-1, -1};
    status_->setText(tr("No text analysed."));
    chart_->setMatrix({}, {});
    depth_->clear();
    attribution_->clear();
    body_->setVisible(false);
}

void LensPage::setResult(const RunResultPtr& result) {
    result_ = result;
    if (isVisible())
        request();
}

void LensPage::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    request();
}

bool LensPage::busy() const {
    return job_->busy() || attribution_->busy();
}

QString LensPage::statusText() const {
    return status_->text();
}

void LensPage::setColour(Colour colour) {
    colour_->setCurrentIndex(colour_->findData(static_cast<int>(colour)));
}

bool LensPage::followToken(const QString& text) {
    int64_t id = -1;
    if (!text.isEmpty()) {
        if (!result_) {
            status_->setText(tr("No text analysed: nothing to follow the token in."));
            return false;
        }
        const auto& model = *result_->model;
        const auto& tokenizer = readSide(model);
        bool number = false;
        const auto n = text.startsWith(QLatin1Char('#')) ? text.mid(1).toLongLong(&number) : 0;
        if (number) {
            if (n < 0 || n >= tokenizer.vocab().size()) {
                status_->setText(tr("There is no token #%1: the vocabulary has ids 0 to %2.")
                                     .arg(n)
                                     .arg(tokenizer.vocab().size() - 1));
                return false;
            }
            id = n;
        } else {
            std::vector<core::Token> pieces;
            for (auto& t : tokenizer.tokenize(text.toStdString()))
                if (!t.special)
                    pieces.push_back(std::move(t));
            if (pieces.size() != 1 || pieces.front().unknown) {
                QStringList shown;
                for (const auto& t : pieces)
                    shown << QStringLiteral("\u201c%1\u201d").arg(tokenDisplayText(t));
                status_->setText(pieces.empty() ? tr("\u201c%1\u201d holds no token to follow.").arg(text)
                                 : pieces.size() == 1
                                     ? tr("\u201c%1\u201d is not in the model's vocabulary.").arg(text)
                                     : tr("\u201c%1\u201d is %2 tokens (%3): the lens follows one; type "
                                          "one of them, or #id.")
                                           .arg(text)
                                           .arg(pieces.size())
                                           .arg(shown.join(QStringLiteral(", "))));
                return false;
            }
            id = pieces.front().id;
        }
    }
    followed_ = id;
    request();
    return true;
}

void LensPage::request() {
    if (!result_ || (computedFor_ == result_ && computedToken_ == followed_))
        return;
    const auto result = result_;
    const auto token = followed_;
    status_->setText(tr("Reading the stream at every point…"));
    job_->start(
        [result, token] {
            return core::logitLens(*result->model, *result->snapshot, token, 10, result->ablation);
        },
        [this, result, token](core::LogitLens lens, const QString& error) {
            computedFor_ = result;
            computedToken_ = token;
            if (!error.isEmpty()) {
                shown_ = core::LogitLens{};
                selected_ = {-1, -1};
                chart_->setMatrix({}, {});
                depth_->clear();
                body_->setVisible(false);
                status_->setText(error);
            } else {
                shown_ = std::move(lens);
                display();
            }
            Q_EMIT updated();
        });
}

int LensPage::rowOf(int point) const {
    return static_cast<int>(shown_.points.size()) - 1 - point;
}

int LensPage::pointOfRow(int row) const {
    return static_cast<int>(shown_.points.size()) - 1 - row;
}

void LensPage::display() {
    const int points = static_cast<int>(shown_.points.size());
    const int positions = static_cast<int>(shown_.tokens.size());
    if (points == 0 || !computedFor_)
        return;
    body_->setVisible(true);
    const auto colour = static_cast<Colour>(colour_->currentData().toInt());
    const auto& model = *computedFor_->model;
    const auto& vocabulary = readSide(model).vocab();
    const double vocab = double(vocabulary.size());
    core::Matrix m(points, positions);
    QStringList rows, labels;
    for (int r = 0; r < points; ++r) {
        const int p = pointOfRow(r);
        rows << AttentionText::streamPointLabel(shown_.points[std::size_t(p)]);
        for (int t = 0; t < positions; ++t) {
            const auto i = std::size_t(p), j = std::size_t(t);
            m.data[std::size_t(r) * std::size_t(positions) + j] =
                colour == Colour::Probability ? std::exp(shown_.logprob[i][j])
                : colour == Colour::Rank      ? float(shown_.rank[i][j] + 1)
                                              : shown_.entropy[i][j];
            const auto& best = shown_.top[i][j].front();
            labels << candidateText(best.id, best.token);
        }
    }
    rows.front() += tr(" = out");
    MatrixChart::WeightScale scale;
    scale.range = colour == Colour::Probability ? std::pair{0.0, 1.0}
                  : colour == Colour::Rank      ? std::pair{1.0, std::max(vocab, 2.0)}
                                                : std::pair{0.0, std::log(std::max(vocab, 2.0))};
    scale.log = colour == Colour::Rank;
    chart_->setWeightScale(scale);
    const auto tokens = tokenLabels(shown_.tokens);
    chart_->setMatrix(m, rows, tokens, MatrixChart::Colours::Weights);
    chart_->setCellLabels(labels);
    QStringList followed;
    for (const auto id : shown_.chosen)
        followed << candidateText(id, vocabulary.token(id));
    QStringList pointNames;
    for (int p = 0; p < points; ++p)
        pointNames << AttentionText::streamPointLabel(shown_.points[std::size_t(p)]);
    depth_->setLens(shown_, pointNames, tokens, followed);
    const QString what = colour == Colour::Probability ? tr("the probability of")
                         : colour == Colour::Rank      ? tr("the rank (1: the top; darker is nearer) of")
                                                       : tr("the entropy (nats) of each reading, beside");
    chart_->setTitle(tr("Logit lens: %1 %2, each cell labelled with its top token")
                         .arg(what, followed_ < 0 ? tr("the model's next token")
                                                  : tr("\u201c%1\u201d").arg(followed.value(0))));
    QString text =
        tr("%1 points \u00d7 %2 positions of the %3 stream, read through %4, in %5 ms. Hover a cell for "
           "its top ten; click it (or Enter) to open its layer on the Attention page.")
            .arg(points)
            .arg(positions)
            .arg(shown_.encoderSide                          ? tr("encoder's")
                 : computedFor_->snapshot->srcTokens.empty() ? tr("decoder's")
                                                             : tr("decoder's (target positions)"))
            .arg(shown_.postNorm ? tr("the output layer") : tr("the final norm and the output layer"))
            .arg(shown_.ms, 0, 'f', 0);
    if (shown_.postNorm)
        text +=
            tr(" A post-norm model ends every sublayer in its norm: each point is read as it is, without a "
               "final norm, and holds the normed sum the next sublayer is handed.");
    status_->setText(text);
    if (selected_.first < 0 || selected_.first >= points || selected_.second >= positions)
        selected_ = {points - 1, positions - 1};
    select(selected_.first, selected_.second);
}

void LensPage::select(int point, int position) {
    const int points = static_cast<int>(shown_.points.size());
    const int positions = static_cast<int>(shown_.tokens.size());
    if (points == 0)
        return;
    selected_ = {std::clamp(point, 0, points - 1), std::clamp(position, 0, positions - 1)};
    chart_->setHighlight(rowOf(selected_.first), selected_.second);
    depth_->setPosition(selected_.second);
    // Which heads and MLPs wrote the token followed there.
    if (computedFor_)
        attribution_->request(computedFor_, selected_.second, shown_.chosen[std::size_t(selected_.second)]);
}

void LensPage::openSelected() {
    if (selected_.first < 0 || shown_.points.empty())
        return;
    const auto& point = shown_.points[std::size_t(selected_.first)];
    const auto dot = point.find('.');
    const int layer = dot == std::string::npos ? 0 : std::stoi(point.substr(0, dot));
    const auto self = shown_.encoderSide ? core::AttentionKind::Encoder : core::AttentionKind::Decoder;
    const auto kind = point.substr(dot == std::string::npos ? point.size() : dot + 1) == "cross"
                          ? core::AttentionKind::Cross
                          : self;
    Q_EMIT attentionChosen(kind, layer, -1, selected_.second);
}

bool LensPage::eventFilter(QObject* watched, QEvent* event) {
    if (watched == chart_->plot() && event->type() == QEvent::KeyPress && !shown_.points.empty()) {
        const auto* key = static_cast<QKeyEvent*>(event);
        const auto [point, position] = selected_;
        // Ctrl+← and Ctrl+→ step the decode (the window's keys): only the bare keys move the cell.
        const bool bare = !(key->modifiers() & (Qt::ControlModifier | Qt::AltModifier | Qt::MetaModifier));
        switch (bare ? key->key() : 0) {
        case Qt::Key_Left:
            select(point, position - 1);
            return true;
        case Qt::Key_Right:
            select(point, position + 1);
            return true;
        case Qt::Key_Up: // towards the output, drawn at the top
            select(point + 1, position);
            return true;
        case Qt::Key_Down:
            select(point - 1, position);
            return true;
        case Qt::Key_Home:
            select(point, 0);
            return true;
        case Qt::Key_End:
            select(point, static_cast<int>(shown_.tokens.size()) - 1);
            return true;
        case Qt::Key_Return:
        case Qt::Key_Enter:
            openSelected();
            return true;
        default:
            break;
        }
    }
    return QWidget::eventFilter(watched, event);
}

QString LensPage::cellTip(int point, int position) const {
    if (point < 0 || position < 0 || point >= int(shown_.points.size()) ||
        position >= int(shown_.tokens.size()))
        return {};
    const auto i = std::size_t(point), j = std::size_t(position);
    const auto& vocab = readSide(*computedFor_->model).vocab();
    QString tip = tr("%1, position %2 \u201c%3\u201d\n")
                      .arg(AttentionText::streamPoint(shown_.points[i]))
                      .arg(position)
                      .arg(tokenDisplayText(shown_.tokens[j]));
    const auto chosen = shown_.chosen[j];
    tip += tr("followed \u201c%1\u201d: probability %2, rank %3; entropy %4 nats\n")
               .arg(candidateText(chosen, vocab.token(chosen)))
               .arg(std::exp(double(shown_.logprob[i][j])), 0, 'g', 3)
               .arg(shown_.rank[i][j] + 1)
               .arg(shown_.entropy[i][j], 0, 'f', 2);
    int k = 0;
    for (const auto& c : shown_.top[i][j])
        tip +=
            tr("\n%1. \u201c%2\u201d %3").arg(++k).arg(candidateText(c.id, c.token)).arg(c.prob, 0, 'f', 3);
    return tip;
}

} // namespace ui
