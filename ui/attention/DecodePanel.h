#pragma once
// The decoding controls: Step, Back, Run to end, Reset (as actions, so menus and shortcuts share them),
// greedy or sampled decoding with temperature, top-k, top-p and a seed, and where the run stands.

#include "core/run/Sampler.h"

#include <QList>
#include <QWidget>

class QAction;
class QCheckBox;
class QDoubleSpinBox;
class QHBoxLayout;
class QLabel;
class QSpinBox;

namespace ui {

class DecodePanel : public QWidget {
    Q_OBJECT
public:
    explicit DecodePanel(QWidget* parent = nullptr);

    QAction* stepAction() const { return step_; }
    QAction* backAction() const { return back_; }
    QAction* runAction() const { return run_; }
    QAction* resetAction() const { return reset_; }

    core::SamplingSettings sampling() const;
    void setSampling(const core::SamplingSettings& s);
    /// Where the run stands: enables the actions that make sense and shows the decoded text; `ending` says
    /// why a finished run decodes no further (AttentionText::endingText), empty while it may go on.
    void setState(int step, const QString& ending, bool hasRun, const QString& decoded);
    /// A new text was typed: Step and Run to end act on it before its analysis is shown.
    void expectNewRun();
    /// A long analysis under way (AttentionText::analysingText): said in the status line, and nothing can be
    /// decoded until its result comes (setState then).
    void setAnalysing(const QString& text);

    /// The buttons' and the settings' least width one above the other: the
    /// narrow arrangement, which the page falls back to when it is given less than one row takes.
    QSize minimumSizeHint() const override;
    /// Whether the sampling settings sit beside the buttons (false: on a row of their own).
    bool oneRow() const { return oneRow_; }

Q_SIGNALS:
    void samplingChanged(const core::SamplingSettings& s);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void emitSampling();
    /// The status line: `head` (the step, the ending) and `tail` (the decoded text), cut to one line.
    void setStatus(const QString& head, const QString& tail);
    void fitStatus();
    void arrange(bool oneRow);
    /// What the buttons and/or the sampling settings take on one row, at their least or their wanted sizes.
    int rowWidth(bool buttons, bool settings, bool least) const;

    QAction* step_ = nullptr;
    QAction* back_ = nullptr;
    QAction* run_ = nullptr;
    QAction* reset_ = nullptr;
    QCheckBox* sample_ = nullptr;
    QDoubleSpinBox* temperature_ = nullptr;
    QSpinBox* topK_ = nullptr;
    QDoubleSpinBox* topP_ = nullptr;
    QSpinBox* seed_ = nullptr;
    QLabel* status_ = nullptr;
    QString statusHead_, statusTail_;
    QHBoxLayout* buttons_ = nullptr;
    QHBoxLayout* samplingRow_ = nullptr;
    QList<QWidget*> settings_; // the sampling settings, which move between the two rows
    bool oneRow_ = true;
};

} // namespace ui
