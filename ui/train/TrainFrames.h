#pragma once
// The Train tab's film of the probe example's attention: the grid showing one frame, a slider to scrub back
// through the frames captured so far, and the step each was captured at. It follows the newest frame until
// the user (or a lesson) holds an older one.

#include <QWidget>

class QLabel;
class QSlider;

namespace ui {

class AttentionGrid;
class TrainFilm;

class TrainFrames : public QWidget {
    Q_OBJECT
public:
    /// film holds the frames (its owner adds them) and outlives this widget.
    explicit TrainFrames(const TrainFilm& film, QWidget* parent = nullptr);

    /// A new run: nothing to scrub yet, and its frames are followed as they come.
    void restart();
    /// The film has gained a frame: the grid takes the kind the task shows, and moves on to the frame unless
    /// an older one is held.
    void frameAdded();
    /// Shows frame `index` in the grid (the slider does this); the newest frame is followed again.
    void showFrame(int index);
    /// Shows frame `index` and stays there as newer frames arrive, until the slider is taken back to the
    /// newest.
    void holdFrame(int index);
    int shownFrame() const;
    AttentionGrid* grid() const { return grid_; }

private:
    const TrainFilm& film_;
    AttentionGrid* grid_ = nullptr;
    QSlider* slider_ = nullptr;
    QLabel* label_ = nullptr;
    bool follow_ = true;
};

} // namespace ui
