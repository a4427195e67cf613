#include "ui/lesson/Lesson.h"

namespace ui {

bool LessonState::operator==(const LessonState& o) const {
    return model == o.model && text == o.text && step == o.step && tab == o.tab && kind == o.kind &&
           layer == o.layer && head == o.head && markRow == o.markRow && markColumn == o.markColumn &&
           scale == o.scale && valueWeighted == o.valueWeighted && insideStage == o.insideStage &&
           train == o.train && frame == o.frame;
}

bool LessonHighlight::operator==(const LessonHighlight& o) const {
    return cellRow == o.cellRow && cellColumn == o.cellColumn && tileLayer == o.tileLayer &&
           tileHead == o.tileHead;
}

bool LessonStep::operator==(const LessonStep& o) const {
    return state == o.state && caption == o.caption && highlight == o.highlight;
}

} // namespace ui
