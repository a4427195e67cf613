// Fuzz target: a lesson file (ui::LessonFile::parse) on any bytes.
//
// A file the reader refuses must be refused with a message (naming the file, the step and the field); one it
// accepts must have a title and steps, and write itself out (toJson) as a file that reads back as the same
// lesson, step by step, and writes out the same bytes again: a recorded lesson is saved and opened that way.
// Nothing is shown and no model is opened. The seeds: the built-in lessons of resources/lessons and the
// cases that break readers: huge, deep and malformed JSON, 1e400 and out-of-range numbers, unknown fields
// and names, wrong types, duplicate keys, a step that is not an object, an empty step list, a newer version.
// (A lesson that is a FIFO or /dev/zero is the file reader's, LessonFile::read, not the parser's: no bytes
// stand for it.)
//
//   build-fuzz/tests/fuzz/fuzz_lesson tests/fuzz/corpus/fuzz_lesson   (scripts/fuzz.sh runs it)

#include "ui/lesson/LessonFile.h"

#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const auto bytes = QByteArray(reinterpret_cast<const char*>(data), static_cast<qsizetype>(size));
    const QString path = QStringLiteral("/nonexistent/fuzz.lesson.json");
    QString error;
    const auto lesson = ui::LessonFile::parse(bytes, path, &error);
    if (!lesson) {
        if (error.isEmpty())
            std::abort();
        return 0;
    }
    if (lesson->title.trimmed().isEmpty() || lesson->steps.empty())
        std::abort();
    const auto written = ui::LessonFile::toJson(*lesson);
    const auto back = ui::LessonFile::parse(written, path, &error);
    if (!back || back->title != lesson->title || back->description != lesson->description ||
        back->steps.size() != lesson->steps.size())
        std::abort();
    for (std::size_t i = 0; i < lesson->steps.size(); ++i)
        if (!(back->steps[i] == lesson->steps[i]))
            std::abort();
    if (ui::LessonFile::toJson(*back) != written)
        std::abort();
    return 0;
}
