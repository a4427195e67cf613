#include "ui/attention/DecodePanel.h"

#include <QAction>
#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QFontMetrics>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

namespace ui {

namespace {

QAction* makeAction(QWidget* parent, const QString& text, const QKeySequence& key, const QString& tip) {
    auto* a = new QAction(text, parent);
    a->setShortcut(key);
    a->setShortcutContext(Qt::WindowShortcut);
    a->setToolTip(QStringLiteral("%1 (%2)").arg(tip, key.toString(QKeySequence::NativeText)));
    return a;
}

QToolButton* button(QAction* a, QWidget* parent) {
    auto* b = new QToolButton(parent);
    b->setDefaultAction(a);
    b->setToolButtonStyle(Qt::ToolButtonTextOnly);
    return b;
}

} // namespace

DecodePanel::DecodePanel(QWidget* parent) : QWidget(parent) {
    // Arrows alone belong to the heatmaps (heads and layers); decoding takes Ctrl+arrows.
    step_ =
        makeAction(this, tr("Step →"), QKeySequence(Qt::CTRL | Qt::Key_Right), tr("Decode one more token"));
    back_ = makeAction(this, tr("← Back"), QKeySequence(Qt::CTRL | Qt::Key_Left),
                       tr("Take back the last decoded token (instant: from history)"));
    run_ = makeAction(this, tr("Run to end ⇥"), QKeySequence(Qt::CTRL | Qt::Key_End),
                      tr("Decode until <eos> or the maximum length"));
    reset_ = makeAction(this, tr("⟲ Reset"), QKeySequence(Qt::CTRL | Qt::Key_Home),
                        tr("Back to the start of decoding"));
    step_->setObjectName(QStringLiteral("stepAction"));
    back_->setObjectName(QStringLiteral("backAction"));
    run_->setObjectName(QStringLiteral("runAction"));
    reset_->setObjectName(QStringLiteral("resetAction"));

    sample_ = new QCheckBox(tr("Sample"), this);
    sample_->setObjectName(QStringLiteral("sampleCheck"));
    sample_->setToolTip(
        tr("Off: greedy (always the most likely token). On: sample with the settings beside"));
    temperature_ = new QDoubleSpinBox(this);
    temperature_->setObjectName(QStringLiteral("temperature"));
    temperature_->setRange(0.05, 5.0);
    temperature_->setSingleStep(0.1);
    temperature_->setValue(1.0);
    temperature_->setPrefix(tr("T "));
    temperature_->setToolTip(tr("Temperature: below 1 sharpens the distribution, above 1 flattens it"));
    topK_ = new QSpinBox(this);
    topK_->setObjectName(QStringLiteral("topK"));
    topK_->setRange(0, 100000);
    topK_->setPrefix(tr("top-k "));
    topK_->setSpecialValueText(tr("top-k off"));
    topK_->setToolTip(tr("Keep only the k most likely tokens (0: keep all)"));
    topP_ = new QDoubleSpinBox(this);
    topP_->setObjectName(QStringLiteral("topP"));
    topP_->setRange(0.01, 1.0);
    topP_->setSingleStep(0.05);
    topP_->setValue(1.0);
    topP_->setPrefix(tr("top-p "));
    topP_->setToolTip(tr("Keep the smallest set of tokens whose probability reaches p (1: keep all)"));
    seed_ = new QSpinBox(this);
    seed_->setObjectName(QStringLiteral("seed"));
    seed_->setRange(0, 999999);
    seed_->setPrefix(tr("seed "));
    seed_->setToolTip(tr("The same seed gives the same sampled run"));
    status_ = new QLabel(this);
    status_->setObjectName(QStringLiteral("decodeStatus"));
    status_->setTextFormat(Qt::PlainText);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // One line, whatever the decoded text's length: its width must not become the window's minimum (255
    // characters of demo-random's output pushed the window past the screen's edge), so what does not fit
    // is cut with "…" at a character's edge, keeping the latest tokens (fitStatus). The tooltip has it all.
    status_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    status_->setToolTip(tr("The current step and the text decoded so far"));

    // The decoding buttons, then the sampling settings beside them, or under them where the page is narrow
    // (a projector's 1024 px with the lesson dock open): the row must not set the window's minimum.
    buttons_ = new QHBoxLayout;
    buttons_->setContentsMargins(0, 0, 0, 0);
    for (auto* a : {back_, step_, run_, reset_})
        buttons_->addWidget(button(a, this));
    buttons_->addStretch(1);
    samplingRow_ = new QHBoxLayout;
    samplingRow_->setContentsMargins(0, 0, 0, 0);
    auto* col = new QVBoxLayout(this);
    col->setContentsMargins(0, 0, 0, 0);
    col->addLayout(buttons_);
    col->addLayout(samplingRow_);
    col->addWidget(status_);
    settings_ = {sample_, temperature_, topK_, topP_, seed_};
    arrange(true);

    for (auto* w : {static_cast<QWidget*>(temperature_), static_cast<QWidget*>(topP_)})
        connect(static_cast<QDoubleSpinBox*>(w), &QDoubleSpinBox::valueChanged, this,
                &DecodePanel::emitSampling);
    connect(topK_, &QSpinBox::valueChanged, this, &DecodePanel::emitSampling);
    connect(seed_, &QSpinBox::valueChanged, this, &DecodePanel::emitSampling);
    connect(sample_, &QCheckBox::toggled, this, &DecodePanel::emitSampling);
    emitSampling();
    setState(0, QString(), false, QString());
}

void DecodePanel::arrange(bool oneRow) {
    oneRow_ = oneRow;
    for (auto* w : settings_) {
        buttons_->removeWidget(w);
        samplingRow_->removeWidget(w);
    }
    // The buttons' stretch is their row's last item: the settings go before it, or on the row below.
    const int stretch = buttons_->count() - 1;
    for (int i = 0; i < settings_.size(); ++i) {
        if (oneRow)
            buttons_->insertWidget(stretch + i, settings_[i]);
        else
            samplingRow_->addWidget(settings_[i]);
    }
    if (!oneRow)
        samplingRow_->addStretch(1);
    else
        while (samplingRow_->count() > 0)
            delete samplingRow_->takeAt(0);
}

int DecodePanel::rowWidth(bool buttons, bool settings, bool least) const {
    int width = 0;
    const auto add = [&](const QWidget* w) {
        width += (least ? w->minimumSizeHint() : w->sizeHint()).width() + buttons_->spacing();
    };
    for (int i = 0; i < buttons_->count(); ++i)
        if (auto* w = buttons_->itemAt(i)->widget(); w && buttons && !settings_.contains(w))
            add(w);
    if (settings)
        for (const auto* w : settings_)
            add(w);
    return width;
}

QSize DecodePanel::minimumSizeHint() const {
    // The narrow arrangement's: the buttons on one row, the settings on the next.
    return {std::max(rowWidth(true, false, true), rowWidth(false, true, true)),
            QWidget::minimumSizeHint().height()};
}

void DecodePanel::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    const bool fits = width() >= rowWidth(true, true, false);
    if (fits != oneRow_)
        arrange(fits);
    fitStatus();
}

void DecodePanel::setStatus(const QString& head, const QString& tail) {
    statusHead_ = head;
    statusTail_ = tail;
    fitStatus();
}

void DecodePanel::fitStatus() {
    // The step and the ending stay whole where they can; the decoded text gives way from its start, where
    // the oldest tokens are. QFontMetrics cuts between whole characters and marks the cut with "…".
    const QFontMetrics fm(status_->font());
    const int room = (status_->contentsRect().width() > 0 ? status_->contentsRect().width() : width()) - 2;
    const int headWidth = fm.horizontalAdvance(statusHead_);
    if (headWidth >= room || statusTail_.isEmpty())
        status_->setText(fm.elidedText(statusHead_ + statusTail_, Qt::ElideRight, room));
    else
        status_->setText(statusHead_ + fm.elidedText(statusTail_, Qt::ElideLeft, room - headWidth));
}

core::SamplingSettings DecodePanel::sampling() const {
    core::SamplingSettings s;
    s.greedy = !sample_->isChecked();
    s.temperature = temperature_->value();
    s.topK = topK_->value();
    s.topP = topP_->value();
    s.seed = static_cast<uint64_t>(seed_->value());
    return s;
}

void DecodePanel::setSampling(const core::SamplingSettings& s) {
    {
        const QSignalBlocker b1(sample_), b2(temperature_), b3(topK_), b4(topP_), b5(seed_);
        sample_->setChecked(!s.greedy);
        temperature_->setValue(s.temperature);
        topK_->setValue(s.topK);
        topP_->setValue(s.topP);
        seed_->setValue(static_cast<int>(s.seed));
    }
    emitSampling();
}

void DecodePanel::emitSampling() {
    const bool on = sample_->isChecked();
    for (QWidget* w : {static_cast<QWidget*>(temperature_), static_cast<QWidget*>(topK_),
                       static_cast<QWidget*>(topP_), static_cast<QWidget*>(seed_)})
        w->setEnabled(on);
    Q_EMIT samplingChanged(sampling());
}

void DecodePanel::expectNewRun() {
    // The text on screen is being replaced: its run's end no longer holds back Step and Run to end, which
    // will act on the new text (AnalysisController decodes the text as typed).
    step_->setEnabled(true);
    run_->setEnabled(true);
    back_->setEnabled(false);
    reset_->setEnabled(false);
}

void DecodePanel::setAnalysing(const QString& text) {
    for (auto* a : {step_, run_, back_, reset_})
        a->setEnabled(false);
    setStatus(text, QString());
    status_->setToolTip(tr("The model is reading the text; the decoding controls come back with its result"));
}

void DecodePanel::setState(int step, const QString& ending, bool hasRun, const QString& decoded) {
    const bool finished = !ending.isEmpty();
    step_->setEnabled(hasRun && !finished);
    run_->setEnabled(hasRun && !finished);
    back_->setEnabled(hasRun && step > 0);
    reset_->setEnabled(hasRun && step > 0);
    if (!hasRun) {
        setStatus(tr("Type a sentence to start."), QString());
        status_->setToolTip(tr("The current step and the text decoded so far"));
        return;
    }
    status_->setToolTip(decoded.isEmpty() ? tr("The current step and the text decoded so far")
                                          : tr("Decoded so far: %1").arg(decoded));
    setStatus(
        tr("step %1%2 · decoded: ").arg(step).arg(finished ? QStringLiteral(" (%1)").arg(ending) : QString()),
        decoded.isEmpty() ? tr("(nothing yet)") : decoded);
}

} // namespace ui
