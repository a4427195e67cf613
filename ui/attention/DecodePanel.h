#pragma once
// The decoding controls: Step, Back, Run to end, Reset (as actions, so menus and shortcuts share them),
// greedy or sampled decoding with temperature, top-k, top-p and a seed, and where the run stands.

#include "core/run/Sampler.h"

#include <QWidget>

class QAction;
class QCheckBox;
class QDoubleSpinBox;
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
    /// Where the run stands: enables the actions that make sense and shows the decoded text.
    void setState(int step, bool finished, bool hasRun, const QString& decoded);
    /// A new text was typed: Step and Run to end act on it before its analysis is shown.
    void expectNewRun();

Q_SIGNALS:
    void samplingChanged(const core::SamplingSettings& s);

private:
    void emitSampling();

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
};

} // namespace ui
