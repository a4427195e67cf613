#include "ui/lesson/LessonFile.h"

#include "ui/base/Pages.h"
#include "ui/export/Exporter.h"
#include "ui/lesson/LessonStepReader.h"

#include "core/base/Errors.h"
#include "core/base/Files.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstring>

namespace ui {

namespace {

const QString kFormat = QStringLiteral("attnscope-lesson");

} // namespace

std::optional<Lesson> LessonFile::read(const QString& path, QString* error) {
    // Through core's one bounded reader: a FIFO is refused without waiting (File ▸ Open Lesson reads on the
    // window's thread), a device such as /dev/zero is not a regular file, and a lesson is a few kilobytes,
    // so anything past a few megabytes is not one and is refused before it is read.
    constexpr uint64_t kMaxBytes = 16 << 20;
    std::string bytes;
    try {
        bytes = core::readFile(path.toStdString(), kMaxBytes);
    } catch (const core::IoError& e) {
        if (error)
            // core says "cannot read PATH: why"; here it is the lesson that cannot be read.
            *error = QString::fromStdString(e.what()).replace(0, int(std::strlen("cannot read ")),
                                                              QStringLiteral("cannot read the lesson "));
        return std::nullopt;
    }
    return parse(QByteArray::fromStdString(bytes), path, error);
}

std::optional<Lesson> LessonFile::parse(const QByteArray& json, const QString& path, QString* error) {
    const auto fail = [&](const QString& message) -> std::optional<Lesson> {
        if (error)
            *error = QStringLiteral("%1: %2").arg(QFileInfo(path).fileName(), message);
        return std::nullopt;
    };
    QJsonParseError parseError;
    const auto doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return fail(
            QStringLiteral("not JSON (%1 at byte %2)").arg(parseError.errorString()).arg(parseError.offset));
    if (!doc.isObject())
        return fail(QStringLiteral("a lesson is a JSON object with \"format\", \"version\", \"title\" and "
                                   "\"steps\""));
    const auto root = doc.object();
    if (root.value(QStringLiteral("format")).toString() != kFormat)
        return fail(
            QStringLiteral("\"format\" must be \"%1\": this is not an attnscope lesson").arg(kFormat));
    const auto version = root.value(QStringLiteral("version"));
    if (!version.isDouble() || version.toDouble() != Lesson::kVersion) {
        if (version.isDouble() && version.toDouble() > Lesson::kVersion)
            return fail(
                QStringLiteral("version %1 was written by a newer attnscope; this one reads version %2")
                    .arg(version.toDouble())
                    .arg(Lesson::kVersion));
        return fail(QStringLiteral("\"version\" must be %1").arg(Lesson::kVersion));
    }
    for (auto it = root.begin(); it != root.end(); ++it)
        if (!QStringList{QStringLiteral("format"), QStringLiteral("version"), QStringLiteral("title"),
                         QStringLiteral("description"), QStringLiteral("steps")}
                 .contains(it.key()))
            return fail(
                QStringLiteral("unknown field \"%1\" (a lesson has format, version, title, description, "
                               "steps)")
                    .arg(it.key()));
    Lesson lesson;
    lesson.path = path;
    const auto title = root.value(QStringLiteral("title"));
    if (!title.isString() || title.toString().trimmed().isEmpty())
        return fail(QStringLiteral("\"title\" must be a non-empty string"));
    lesson.title = title.toString();
    if (root.contains(QStringLiteral("description"))) {
        if (!root.value(QStringLiteral("description")).isString())
            return fail(QStringLiteral("\"description\" must be a string"));
        lesson.description = root.value(QStringLiteral("description")).toString();
    }
    const auto steps = root.value(QStringLiteral("steps"));
    if (!steps.isArray() || steps.toArray().isEmpty())
        return fail(QStringLiteral("\"steps\" must be a non-empty array of steps"));
    try {
        LessonStep before;
        const auto array = steps.toArray();
        for (int i = 0; i < array.size(); ++i) {
            if (!array.at(i).isObject())
                throw LessonReadError{QStringLiteral("step %1: a step is an object").arg(i + 1)};
            lesson.steps.push_back(LessonStepReader::read(array.at(i).toObject(), i, before));
            before = lesson.steps.back();
        }
    } catch (const LessonReadError& bad) {
        return fail(bad.message);
    }
    return lesson;
}

QByteArray LessonFile::toJson(const Lesson& lesson) {
    QJsonArray steps;
    for (const auto& step : lesson.steps) {
        const auto& s = step.state;
        QJsonObject o{{QStringLiteral("caption"), step.caption},
                      {QStringLiteral("model"), s.model},
                      {QStringLiteral("text"), s.text},
                      {QStringLiteral("step"), s.step},
                      {QStringLiteral("tab"), s.tab},
                      {QStringLiteral("kind"),
                       LessonStepReader::kindName(s.kind.value_or(core::AttentionKind::Decoder))},
                      {QStringLiteral("layer"), s.layer},
                      {QStringLiteral("head"),
                       s.head == core::kMeanHead ? QJsonValue(QStringLiteral("mean")) : QJsonValue(s.head)},
                      {QStringLiteral("scale"), QLatin1String(LessonStepReader::scaleName(s.scale))},
                      {QStringLiteral("value_weighted"), s.valueWeighted},
                      {QStringLiteral("inside_stage"), s.insideStage}};
        QJsonArray forced;
        for (const auto& [token, id] : s.forced)
            forced.append(QJsonArray{token, static_cast<qint64>(id)});
        o.insert(QStringLiteral("forced"), forced);
        if (s.zoom)
            o.insert(QStringLiteral("zoom"), s.zoom->isEmpty()
                                                 ? QJsonValue()
                                                 : QJsonValue(QJsonArray{s.zoom->x(), s.zoom->y(),
                                                                         s.zoom->width(), s.zoom->height()}));
        o.insert(QStringLiteral("mark"),
                 s.markRow >= 0      ? QJsonValue(QJsonObject{{QStringLiteral("row"), s.markRow}})
                 : s.markColumn >= 0 ? QJsonValue(QJsonObject{{QStringLiteral("column"), s.markColumn}})
                                     : QJsonValue());
        QJsonObject train{
            {QStringLiteral("preset"), s.train.preset},
            {QStringLiteral("size"), s.train.tiny ? QStringLiteral("tiny") : QStringLiteral("classroom")}};
        if (s.train.steps > 0) // else the recipe's own
            train.insert(QStringLiteral("steps"), s.train.steps);
        o.insert(QStringLiteral("train"), s.train.wanted() ? QJsonValue(train) : QJsonValue());
        o.insert(QStringLiteral("frame"),
                 s.frame == WindowState::kLatestFrame   ? QJsonValue(QStringLiteral("latest"))
                 : s.frame == WindowState::kFormedFrame ? QJsonValue(QStringLiteral("formed"))
                                                        : QJsonValue(s.frame));
        const auto& h = step.highlight;
        // Written for every step, none as null: a step read without one would keep the step before's.
        o.insert(QStringLiteral("highlight"), QJsonValue());
        if (h.hasCell() || h.hasTile()) {
            QJsonObject hl;
            if (h.hasCell())
                hl.insert(QStringLiteral("cell"), QJsonArray{h.cellRow, h.cellColumn});
            if (h.hasTile())
                hl.insert(QStringLiteral("tile"),
                          QJsonArray{h.tileLayer, h.tileHead == core::kMeanHead
                                                      ? QJsonValue(QStringLiteral("mean"))
                                                      : QJsonValue(h.tileHead)});
            o.insert(QStringLiteral("highlight"), hl);
        }
        steps.append(o);
    }
    QJsonObject root{{QStringLiteral("format"), kFormat},
                     {QStringLiteral("version"), Lesson::kVersion},
                     {QStringLiteral("title"), lesson.title},
                     {QStringLiteral("steps"), steps}};
    if (!lesson.description.isEmpty())
        root.insert(QStringLiteral("description"), lesson.description);
    return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

bool LessonFile::save(const Lesson& lesson, const QString& path, QString* error) {
    return Exporter::writeBytes(path, toJson(lesson), error);
}

QString LessonFile::modelFolder(const Lesson& lesson, const QString& model, const QString& builtinDir) {
    // A bare name is a built-in model's; anything with a separator is a folder.
    if (!model.contains(QLatin1Char('/')) && !model.contains(QLatin1Char('\\')) && !builtinDir.isEmpty() &&
        QFileInfo(QDir(builtinDir).filePath(model)).isDir())
        return QDir(builtinDir).filePath(model);
    if (QDir::isAbsolutePath(model) || lesson.path.isEmpty())
        return model;
    return QFileInfo(lesson.path).absoluteDir().filePath(model);
}

QString LessonFile::modelRefusal(const Lesson& lesson, const QString& dir, const QString& builtinDir,
                                 const QString& openDir) {
    // A lesson is a file handed from one person to another: the folders it may open are the built-in
    // models, those inside its own folder (links followed), and the one the user has open already.
    const QString real = QFileInfo(dir).canonicalFilePath();
    const auto inside = [&real](const QString& root) {
        const QString r = QFileInfo(root).canonicalFilePath();
        return !r.isEmpty() && (real == r || real.startsWith(r + QLatin1Char('/')));
    };
    if (real.isEmpty() || (!builtinDir.isEmpty() && inside(builtinDir)) ||
        (!openDir.isEmpty() && real == QFileInfo(openDir).canonicalFilePath()) ||
        (!lesson.path.isEmpty() && inside(QFileInfo(lesson.path).absolutePath())))
        return {};
    return QStringLiteral(
               "the model folder %1 lies outside the lesson's folder; a lesson opens only built-in "
               "models, folders beside it, and the model already open (File ▸ Open Model "
               "opens it first)")
        .arg(QDir::toNativeSeparators(real));
}

} // namespace ui
