#include "ui/Lesson.h"

#include "ui/Exporter.h"
#include "ui/LessonCaption.h"
#include "ui/Pages.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <limits>
#include <set>

namespace ui {

namespace {

const QString kFormat = QStringLiteral("attnscope-lesson");

const char* const kScaleNames[] = {"fixed", "per-head", "log"};

// A read failure: its message names the file, the step (from 1, as the player counts) and the field.
struct Bad {
    QString message;
};

class StepReader {
public:
    StepReader(const QJsonObject& o, int index) : o_(o), index_(index) {}

    [[noreturn]] void fail(const QString& what) const {
        throw Bad{QStringLiteral("step %1: %2").arg(index_ + 1).arg(what)};
    }

    bool has(const char* key) const { return o_.contains(QLatin1String(key)); }

    QString string(const char* key) const {
        const auto v = o_.value(QLatin1String(key));
        if (!v.isString())
            fail(QStringLiteral("\"%1\" must be a string").arg(QLatin1String(key)));
        return v.toString();
    }

    int whole(const char* key, int lo, int hi) const {
        return wholeOf(o_.value(QLatin1String(key)), key, lo, hi);
    }

    int wholeOf(const QJsonValue& v, const char* key, int lo, int hi) const {
        const double d = v.toDouble(std::numeric_limits<double>::quiet_NaN());
        if (!v.isDouble() || d != static_cast<double>(static_cast<long long>(d)) || d < lo || d > hi)
            fail(QStringLiteral("\"%1\" must be a whole number from %2 to %3, not %4")
                     .arg(QLatin1String(key))
                     .arg(lo)
                     .arg(hi)
                     .arg(describe(v)));
        return static_cast<int>(d);
    }

    // A head: a number, or "mean".
    int head(const QJsonValue& v, const char* key) const {
        if (v.isString() && v.toString() == QLatin1String("mean"))
            return core::kMeanHead;
        if (v.isString())
            fail(QStringLiteral("\"%1\" must be a head number or \"mean\", not %2")
                     .arg(QLatin1String(key), describe(v)));
        return wholeOf(v, key, 0, 4095);
    }

    bool boolean(const char* key) const {
        const auto v = o_.value(QLatin1String(key));
        if (!v.isBool())
            fail(QStringLiteral("\"%1\" must be true or false, not %2").arg(QLatin1String(key), describe(v)));
        return v.toBool();
    }

    QJsonObject object(const char* key) const {
        const auto v = o_.value(QLatin1String(key));
        if (!v.isObject())
            fail(QStringLiteral("\"%1\" must be an object").arg(QLatin1String(key)));
        return v.toObject();
    }

    static QString describe(const QJsonValue& v) {
        if (v.isString())
            return QStringLiteral("\"%1\"").arg(v.toString());
        if (v.isDouble())
            return QString::number(v.toDouble());
        if (v.isBool())
            return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
        if (v.isNull())
            return QStringLiteral("null");
        return v.isArray() ? QStringLiteral("an array") : QStringLiteral("an object");
    }

private:
    const QJsonObject& o_;
    int index_;
};

const std::set<QString>& stepKeys() {
    static const std::set<QString> keys{QStringLiteral("caption"),
                                        QStringLiteral("model"),
                                        QStringLiteral("text"),
                                        QStringLiteral("step"),
                                        QStringLiteral("tab"),
                                        QStringLiteral("kind"),
                                        QStringLiteral("layer"),
                                        QStringLiteral("head"),
                                        QStringLiteral("mark"),
                                        QStringLiteral("scale"),
                                        QStringLiteral("value_weighted"),
                                        QStringLiteral("inside_stage"),
                                        QStringLiteral("highlight")};
    return keys;
}

QString keyList(const std::set<QString>& keys) {
    QStringList out;
    for (const auto& k : keys)
        out << k;
    return out.join(QStringLiteral(", "));
}

// Reads one step over the state of the step before: what it names changes, the rest stays.
LessonStep readStep(const QJsonObject& o, int index, const LessonStep& before) {
    const StepReader r(o, index);
    for (auto it = o.begin(); it != o.end(); ++it)
        if (!stepKeys().count(it.key()))
            r.fail(
                QStringLiteral("unknown field \"%1\" (a step has: %2)").arg(it.key(), keyList(stepKeys())));
    LessonStep step;
    step.state = before.state;
    step.highlight = before.highlight;
    auto& s = step.state;
    if (!r.has("caption"))
        r.fail(QStringLiteral("\"caption\" is missing: every step says something"));
    step.caption = r.string("caption");
    QString why;
    if (!LessonCaption::check(step.caption, &why))
        r.fail(QStringLiteral("caption: %1").arg(why));
    if (r.has("model")) {
        s.model = r.string("model").trimmed();
        if (s.model.isEmpty())
            r.fail(QStringLiteral("\"model\" is empty: name a built-in model or a folder"));
    }
    if (r.has("text"))
        s.text = r.string("text");
    if (index == 0 && (s.model.isEmpty() || !r.has("text")))
        r.fail(QStringLiteral("the first step must name the \"model\" and the \"text\""));
    if (s.text.trimmed().isEmpty())
        r.fail(QStringLiteral("\"text\" is empty: the model needs something to read"));
    if (r.has("model") || r.has("text"))
        s.step = 0; // another run starts at its analysis unless the step says otherwise
    if (r.has("step"))
        s.step = r.whole("step", 0, 100000);
    if (r.has("tab")) {
        s.tab = r.string("tab");
        if (!LessonFile::tabNames().contains(s.tab))
            r.fail(QStringLiteral("\"tab\" \"%1\" is not one of %2")
                       .arg(s.tab, LessonFile::tabNames().join(QStringLiteral(", "))));
        if (s.tab != QLatin1String("inside"))
            s.insideStage = 0;
    }
    if (r.has("kind")) {
        const auto name = r.string("kind");
        const auto kind = core::attentionKindNamed(name.toStdString());
        if (!kind)
            r.fail(
                QStringLiteral("\"kind\" \"%1\" is not one of encoder, decoder, cross, pooling").arg(name));
        s.kind = *kind;
    }
    if (r.has("layer"))
        s.layer = r.whole("layer", 0, 4095);
    if (r.has("head"))
        s.head = r.head(o.value(QStringLiteral("head")), "head");
    if (r.has("mark")) {
        const auto v = o.value(QStringLiteral("mark"));
        s.markRow = s.markColumn = -1;
        if (!v.isNull()) {
            const auto m = r.object("mark");
            if (m.size() != 1 || !(m.contains(QStringLiteral("row")) || m.contains(QStringLiteral("column"))))
                r.fail(QStringLiteral("\"mark\" must be {\"row\": I}, {\"column\": J} or null"));
            if (m.contains(QStringLiteral("row")))
                s.markRow = r.wholeOf(m.value(QStringLiteral("row")), "mark.row", 0, 1 << 20);
            else
                s.markColumn = r.wholeOf(m.value(QStringLiteral("column")), "mark.column", 0, 1 << 20);
        }
    }
    if (r.has("scale")) {
        const auto name = r.string("scale");
        bool found = false;
        for (int i = 0; i < 3; ++i)
            if (name == QLatin1String(kScaleNames[i])) {
                s.scale = static_cast<ScaleMode>(i);
                found = true;
            }
        if (!found)
            r.fail(QStringLiteral("\"scale\" \"%1\" is not one of fixed, per-head, log").arg(name));
    }
    if (r.has("value_weighted"))
        s.valueWeighted = r.boolean("value_weighted");
    if (r.has("inside_stage"))
        s.insideStage = r.whole("inside_stage", 0, 5);
    if (r.has("highlight") && o.value(QStringLiteral("highlight")).isNull())
        step.highlight = LessonHighlight{};
    else if (r.has("highlight")) {
        step.highlight = LessonHighlight{}; // a highlight given replaces the one before whole
        const auto h = r.object("highlight");
        for (auto it = h.begin(); it != h.end(); ++it)
            if (it.key() != QLatin1String("cell") && it.key() != QLatin1String("tile"))
                r.fail(
                    QStringLiteral("\"highlight\" has \"cell\": [row, column] and \"tile\": [layer, head], "
                                   "not \"%1\"")
                        .arg(it.key()));
        const auto pair = [&](const char* key) -> std::pair<QJsonValue, QJsonValue> {
            const auto v = h.value(QLatin1String(key));
            if (!v.isArray() || v.toArray().size() != 2)
                r.fail(QStringLiteral("\"highlight.%1\" must be a pair [a, b]").arg(QLatin1String(key)));
            return {v.toArray().at(0), v.toArray().at(1)};
        };
        if (h.contains(QStringLiteral("cell"))) {
            const auto [a, b] = pair("cell");
            step.highlight.cellRow = r.wholeOf(a, "highlight.cell's row", 0, 1 << 20);
            step.highlight.cellColumn = r.wholeOf(b, "highlight.cell's column", 0, 1 << 20);
        }
        if (h.contains(QStringLiteral("tile"))) {
            const auto [a, b] = pair("tile");
            step.highlight.tileLayer = r.wholeOf(a, "highlight.tile's layer", 0, 4095);
            step.highlight.tileHead = r.head(b, "highlight.tile's head");
        }
    }
    return step;
}

} // namespace

bool LessonState::operator==(const LessonState& o) const {
    return model == o.model && text == o.text && step == o.step && tab == o.tab && kind == o.kind &&
           layer == o.layer && head == o.head && markRow == o.markRow && markColumn == o.markColumn &&
           scale == o.scale && valueWeighted == o.valueWeighted && insideStage == o.insideStage;
}

bool LessonHighlight::operator==(const LessonHighlight& o) const {
    return cellRow == o.cellRow && cellColumn == o.cellColumn && tileLayer == o.tileLayer &&
           tileHead == o.tileHead;
}

bool LessonStep::operator==(const LessonStep& o) const {
    return state == o.state && caption == o.caption && highlight == o.highlight;
}

QStringList LessonFile::tabNames() {
    QStringList out;
    for (int i = 0; i < kPageCount; ++i)
        out << pageName(Page(i));
    return out;
}

QString LessonFile::kindName(core::AttentionKind kind) {
    return QString::fromLatin1(core::toString(kind));
}

std::optional<Lesson> LessonFile::read(const QString& path, QString* error) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        if (error)
            *error = QStringLiteral("cannot read the lesson %1: %2").arg(path, f.errorString());
        return std::nullopt;
    }
    // A lesson is a few kilobytes; anything past a few megabytes is not one.
    constexpr qint64 kMaxBytes = 16 << 20;
    if (f.size() > kMaxBytes) {
        if (error)
            *error = QStringLiteral("%1 is %2 MB: too large to be a lesson").arg(path).arg(f.size() >> 20);
        return std::nullopt;
    }
    return parse(f.readAll(), path, error);
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
                throw Bad{QStringLiteral("step %1: a step is an object").arg(i + 1)};
            lesson.steps.push_back(readStep(array.at(i).toObject(), i, before));
            before = lesson.steps.back();
        }
    } catch (const Bad& bad) {
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
                      {QStringLiteral("kind"), kindName(s.kind)},
                      {QStringLiteral("layer"), s.layer},
                      {QStringLiteral("head"),
                       s.head == core::kMeanHead ? QJsonValue(QStringLiteral("mean")) : QJsonValue(s.head)},
                      {QStringLiteral("scale"), QLatin1String(kScaleNames[static_cast<int>(s.scale)])},
                      {QStringLiteral("value_weighted"), s.valueWeighted},
                      {QStringLiteral("inside_stage"), s.insideStage}};
        o.insert(QStringLiteral("mark"),
                 s.markRow >= 0      ? QJsonValue(QJsonObject{{QStringLiteral("row"), s.markRow}})
                 : s.markColumn >= 0 ? QJsonValue(QJsonObject{{QStringLiteral("column"), s.markColumn}})
                                     : QJsonValue());
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

} // namespace ui
