#include "ui/positional/PositionalControls.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

namespace ui {

namespace {

// More curves than this turn the plot into a hatch pattern; the table heatmap shows them all anyway.
constexpr int kMaxCurves = 12;

} // namespace

QVector<int> PositionalControls::parseDims(const QString& text, int dims) {
    QVector<int> out;
    const auto add = [&](int d) {
        if (d >= 0 && d < dims && !out.contains(d) && out.size() < kMaxCurves)
            out.push_back(d);
    };
    for (const auto& part : text.split(QRegularExpression(QStringLiteral("[,;\\s]+")), Qt::SkipEmptyParts)) {
        const auto ends = part.split(QLatin1Char('-'));
        bool ok1 = false, ok2 = false;
        if (ends.size() == 2) {
            const int a = ends[0].toInt(&ok1), b = ends[1].toInt(&ok2);
            if (ok1 && ok2)
                for (int d = a; d <= b; ++d)
                    add(d);
        } else if (const int d = part.toInt(&ok1); ok1) {
            add(d);
        }
    }
    return out;
}

PositionalControls::PositionalControls(QWidget* parent) : QWidget(parent) {
    // Controls and the summary on two lines, so the window still fits a 1024-pixel screen.
    auto* rowLayout = new QVBoxLayout(this);
    rowLayout->setContentsMargins(0, 0, 0, 0);
    rowLayout->setSpacing(2);
    // The plots' controls on the first line; the side and the range's limit, whose texts are long, on the
    // second: presenting, one line of them all was wider than a projector.
    controls_ = new QWidget;
    auto* lines = new QVBoxLayout(controls_);
    lines->setContentsMargins(0, 0, 0, 0);
    lines->setSpacing(2);
    auto* h = new QHBoxLayout;
    auto* second = new QHBoxLayout;
    lines->addLayout(h);
    lines->addLayout(second);
    QHBoxLayout* into = second;
    const auto label = [&](const QString& text, QWidget* buddy) {
        auto* l = new QLabel(text);
        l->setBuddy(buddy);
        l->setToolTip(buddy->toolTip());
        into->addWidget(l);
        into->addWidget(buddy);
        return l;
    };

    sideBox_ = new QComboBox;
    sideBox_->setObjectName(QStringLiteral("sideBox"));
    sideBox_->addItems({tr("source (encoder)"), tr("target (decoder)")});
    sideBox_->setToolTip(tr("Which side's table to show: an encoder–decoder model adds one table to the "
                            "source embeddings and one to the target embeddings (learned tables differ)."));
    sideLabel_ = label(tr("&Side:"), sideBox_);
    into = h;
    connect(sideBox_, QOverload<int>::of(&QComboBox::currentIndexChanged), this,
            [this](int i) { Q_EMIT sourceSideChosen(i == 0); });

    positionsSpin_ = new QSpinBox;
    positionsSpin_->setObjectName(QStringLiteral("positionsSpin"));
    positionsSpin_->setToolTip(tr("How many positions (0 … n−1) every plot shows."));
    label(tr("&Positions:"), positionsSpin_);
    // Where the range stops and why: a silent cap reads as a broken control.
    positionsLimit_ = new QLabel;
    positionsLimit_->setObjectName(QStringLiteral("positionsLimit"));
    positionsLimit_->setForegroundRole(QPalette::PlaceholderText);
    second->addWidget(positionsLimit_);
    second->addStretch(1);
    connect(positionsSpin_, QOverload<int>::of(&QSpinBox::valueChanged), this,
            &PositionalControls::positionsChosen);

    dimsEdit_ = new QLineEdit;
    dimsEdit_->setObjectName(QStringLiteral("dimsEdit"));
    dimsEdit_->setMinimumWidth(110);
    dimsEdit_->setToolTip(tr("Dimensions drawn as curves against position, e.g. \"0, 1, 6, 7\" or \"0-3\" "
                             "(at most %1).")
                              .arg(kMaxCurves));
    label(tr("&Dims:"), dimsEdit_);
    connect(dimsEdit_, &QLineEdit::editingFinished, this,
            [this] { Q_EMIT curveDimsEdited(dimsEdit_->text()); });

    similarityBox_ = new QComboBox;
    similarityBox_->setObjectName(QStringLiteral("similarityBox"));
    similarityBox_->addItems({tr("cosine"), tr("dot product")});
    similarityBox_->setToolTip(tr("Position-to-position similarity: cosine compares directions only; the "
                                  "dot product also grows with the vectors' lengths."));
    label(tr("Si&milarity:"), similarityBox_);
    connect(similarityBox_, QOverload<int>::of(&QComboBox::currentIndexChanged), this,
            [this](int i) { Q_EMIT cosineSimilarityChosen(i == 0); });

    pairSpin_ = new QSpinBox;
    pairSpin_->setObjectName(QStringLiteral("pairSpin"));
    pairSpin_->setToolTip(tr("The pair i of dimensions (2i, 2i+1) whose points the rotation plot shows."));
    label(tr("P&air i:"), pairSpin_);
    connect(pairSpin_, QOverload<int>::of(&QSpinBox::valueChanged), this, &PositionalControls::pairChosen);

    offsetSpin_ = new QSpinBox;
    offsetSpin_->setObjectName(QStringLiteral("offsetSpin"));
    offsetSpin_->setToolTip(tr("The offset k checked in PE(pos+k) = R(kθ_i)·PE(pos)."));
    label(tr("O&ffset k:"), offsetSpin_);
    connect(offsetSpin_, QOverload<int>::of(&QSpinBox::valueChanged), this,
            &PositionalControls::offsetChosen);

    h->addStretch(1);
    rowLayout->addWidget(controls_);
    summary_ = new QLabel;
    summary_->setObjectName(QStringLiteral("positionalSummary"));
    summary_->setToolTip(tr("The model's positional encoding and the size of the table shown."));
    rowLayout->addWidget(summary_);
}

PositionalControls::~PositionalControls() = default;

void PositionalControls::setControlsVisible(bool visible) {
    controls_->setVisible(visible);
}

void PositionalControls::setSideSelectable(bool selectable) {
    sideBox_->setVisible(selectable);
    sideLabel_->setVisible(selectable);
}

void PositionalControls::setSourceSide(bool source) {
    const QSignalBlocker block(sideBox_);
    sideBox_->setCurrentIndex(source ? 0 : 1);
}

void PositionalControls::setPositionsRange(int minimum, int maximum, const QString& limit) {
    const QSignalBlocker block(positionsSpin_);
    positionsSpin_->setRange(minimum, maximum);
    positionsLimit_->setText(limit);
    positionsLimit_->setToolTip(limit);
}

QString PositionalControls::positionsLimitText() const {
    return positionsLimit_->text();
}

void PositionalControls::setPositions(int positions) {
    const QSignalBlocker block(positionsSpin_);
    positionsSpin_->setValue(positions);
}

void PositionalControls::setDimsText(const QString& text) {
    const QSignalBlocker block(dimsEdit_);
    dimsEdit_->setText(text);
}

QString PositionalControls::dimsText() const {
    return dimsEdit_->text();
}

void PositionalControls::setCosineSimilarity(bool cosine) {
    const QSignalBlocker block(similarityBox_);
    similarityBox_->setCurrentIndex(cosine ? 0 : 1);
}

void PositionalControls::setPairRange(int minimum, int maximum) {
    const QSignalBlocker block(pairSpin_);
    pairSpin_->setRange(minimum, maximum);
}

void PositionalControls::setPair(int pair) {
    const QSignalBlocker block(pairSpin_);
    pairSpin_->setValue(pair);
}

void PositionalControls::setOffsetRange(int minimum, int maximum) {
    const QSignalBlocker block(offsetSpin_);
    offsetSpin_->setRange(minimum, maximum);
}

void PositionalControls::setOffset(int offset) {
    const QSignalBlocker block(offsetSpin_);
    offsetSpin_->setValue(offset);
}

void PositionalControls::setSummary(const QString& text) {
    summary_->setText(text);
}

} // namespace ui
