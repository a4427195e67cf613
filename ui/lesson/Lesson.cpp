#include "ui/lesson/Lesson.h"

namespace ui {

bool LessonHighlight::operator==(const LessonHighlight& o) const {
    return cellRow == o.cellRow && cellColumn == o.cellColumn && tileLayer == o.tileLayer &&
           tileHead == o.tileHead;
}

bool LessonStep::operator==(const LessonStep& o) const {
    return state == o.state && caption == o.caption && highlight == o.highlight;
}

} // namespace ui
