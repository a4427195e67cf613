#pragma once
// The Inside page's stages as one scrolled sheet that reflows: two columns (1 | 2, 3 | 4, 5 | the next
// token) where the scroll area's width holds both, else one column in reading order, so no stage sits off
// to the right behind a scrollbar (the lesson dock and presentation mode leave a projector ~660 px).

#include <QWidget>

#include <vector>

class QGridLayout;
class QScrollArea;

namespace ui {

class InsideStages : public QWidget {
    Q_OBJECT
public:
    /// Becomes `scroll`'s widget and follows its width.
    explicit InsideStages(QScrollArea* scroll);

    /// Adds the next stage, in reading order.
    void addStage(QWidget* stage);
    /// Whether the stages stand in two columns now.
    bool twoColumns() const { return columns_ == 2; }
    /// The width two columns take at least: wider than that, they stand side by side.
    int twoColumnWidth() const;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void arrange(int columns);
    void reflow();

    QScrollArea* scroll_ = nullptr;
    QGridLayout* grid_ = nullptr;
    std::vector<QWidget*> stages_;
    int columns_ = 0;
};

} // namespace ui
