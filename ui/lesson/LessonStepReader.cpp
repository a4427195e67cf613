#include "ui/lesson/LessonStepReader.h"

#include "ui/base/Pages.h"
#include "ui/lesson/LessonCaption.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QStringList>

#include <cmath>
#include <limits>
#include <set>

namespace ui {

const char* LessonStepReader::scaleName(ScaleMode mode) {
    static const char* const names[] = {"fixed", "per-head", "log"};
    return names[static_cast<int>(mode)];
}

QString LessonStepReader::kindName(core::AttentionKind kind) {
    return QString::fromLatin1(core::toString(kind));
}

QStringList LessonStepReader::tabNames() {
    QStringList out;
    for (int i = 0; i < kPageCount; ++i)
        out << pageName(Page(i));
    return out;
}

namespace {

class StepReader {
public:
    StepReader(const QJsonObject& o, int index) : o_(o), index_(index) {}

    [[noreturn]] void fail(const QString& what) const {
        throw LessonReadError{QStringLiteral("step %1: %2").arg(index_ + 1).arg(what)};
    }

    bool has(const char* key) const { return o_.contains(QLatin1String(key)); }
    int index() const { return index_; }

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
        // The range first: converting a double outside long long's range (1e20) is undefined behaviour.
        if (!v.isDouble() || !(d >= lo && d <= hi) || d != std::floor(d))
            fail(QStringLiteral("\"%1\" must be a whole number from %2 to %3, not %4")
                     .arg(QLatin1String(key))
                     .arg(lo)
                     .arg(hi)
                     .arg(describe(v)));
        return static_cast<int>(d);
    }

    double numberOf(const QJsonValue& v, const char* key, double lo, double hi) const {
        const double d = v.toDouble(std::numeric_limits<double>::quiet_NaN());
        if (!v.isDouble() || !(d >= lo && d <= hi))
            fail(QStringLiteral("\"%1\" must be a number from %2 to %3, not %4")
                     .arg(QLatin1String(key))
                     .arg(lo)
                     .arg(hi)
                     .arg(describe(v)));
        return d;
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
                                        QStringLiteral("forced"),
                                        QStringLiteral("zoom"),
                                        QStringLiteral("tab"),
                                        QStringLiteral("kind"),
                                        QStringLiteral("layer"),
                                        QStringLiteral("head"),
                                        QStringLiteral("mark"),
                                        QStringLiteral("scale"),
                                        QStringLiteral("value_weighted"),
                                        QStringLiteral("inside_stage"),
                                        QStringLiteral("highlight"),
                                        QStringLiteral("train"),
                                        QStringLiteral("frame")};
    return keys;
}

QString keyList(const std::set<QString>& keys) {
    QStringList out;
    for (const auto& k : keys)
        out << k;
    return out.join(QStringLiteral(", "));
}

// "train": {"preset": P, "steps": N, "size": "classroom" | "tiny"}, or null for none.
WindowTraining readTraining(const StepReader& r, const QJsonValue& v) {
    WindowTraining t;
    if (v.isNull())
        return t;
    if (!v.isObject())
        r.fail(QStringLiteral("\"train\" must be {\"preset\": NAME, \"steps\": N, \"size\": \"classroom\" "
                              "or \"tiny\"} or null"));
    const auto o = v.toObject();
    const StepReader in(o, r.index());
    for (auto it = o.begin(); it != o.end(); ++it)
        if (it.key() != QLatin1String("preset") && it.key() != QLatin1String("steps") &&
            it.key() != QLatin1String("size"))
            r.fail(QStringLiteral("\"train\" has preset, steps and size, not \"%1\"").arg(it.key()));
    if (!in.has("preset") || !o.value(QStringLiteral("preset")).isString() ||
        o.value(QStringLiteral("preset")).toString().trimmed().isEmpty())
        r.fail(QStringLiteral("\"train.preset\" must name a Train-tab preset (a recipe, \"induction\")"));
    t.preset = o.value(QStringLiteral("preset")).toString().trimmed();
    if (in.has("steps"))
        t.steps = in.wholeOf(o.value(QStringLiteral("steps")), "train.steps", 10, 100000);
    if (in.has("size")) {
        const auto size = o.value(QStringLiteral("size")).toString();
        if (size != QLatin1String("classroom") && size != QLatin1String("tiny"))
            r.fail(QStringLiteral("\"train.size\" must be \"classroom\" or \"tiny\", not %1")
                       .arg(StepReader::describe(o.value(QStringLiteral("size")))));
        t.tiny = size == QLatin1String("tiny");
    }
    return t;
}

// What the step runs: the model, the text and the step decoded to; the first step must name both.
void readRun(const StepReader& r, int index, WindowState& s) {
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
    if (r.has("model") || r.has("text")) {
        s.step = 0; // another run starts at its analysis unless the step says otherwise
        s.forced.clear();
    }
    if (r.has("step"))
        s.step = r.whole("step", 0, 100000);
}

// Where the step looks: the page, the kind, layer and head, and the row or column marked.
void readView(const StepReader& r, const QJsonObject& o, WindowState& s) {
    if (r.has("tab")) {
        s.tab = r.string("tab");
        if (!LessonStepReader::tabNames().contains(s.tab))
            r.fail(QStringLiteral("\"tab\" \"%1\" is not one of %2")
                       .arg(s.tab, LessonStepReader::tabNames().join(QStringLiteral(", "))));
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
}

// The colour scale, by the name scaleName() gives it.
void readScale(const StepReader& r, WindowState& s) {
    const auto name = r.string("scale");
    bool found = false;
    for (int i = 0; i < 3; ++i)
        if (name == QLatin1String(LessonStepReader::scaleName(static_cast<ScaleMode>(i)))) {
            s.scale = static_cast<ScaleMode>(i);
            found = true;
        }
    if (!found)
        r.fail(QStringLiteral("\"scale\" \"%1\" is not one of fixed, per-head, log").arg(name));
}

// The Train tab's frame: "latest", "formed" or a step number.
void readFrame(const StepReader& r, const QJsonObject& o, WindowState& s) {
    const auto v = o.value(QStringLiteral("frame"));
    if (v.isString() && v.toString() == QLatin1String("latest"))
        s.frame = WindowState::kLatestFrame;
    else if (v.isString() && v.toString() == QLatin1String("formed"))
        s.frame = WindowState::kFormedFrame;
    else if (v.isString())
        r.fail(QStringLiteral("\"frame\" must be \"latest\", \"formed\" or a step number, not %1")
                   .arg(StepReader::describe(v)));
    else
        s.frame = r.wholeOf(v, "frame", 0, 1000000);
}

// "forced": [[token, id], …]: the decoded tokens (from 0) chosen instead of the model's, each by its id, in
// order; null or [] for none.
void readForced(const StepReader& r, const QJsonObject& o, WindowState& s) {
    s.forced.clear();
    const auto v = o.value(QStringLiteral("forced"));
    if (v.isNull())
        return;
    const QString form = QStringLiteral("\"forced\" must be a list of [token, id] pairs in order ([[2, 17]] "
                                        "forces the id 17 as the third decoded token), or null");
    if (!v.isArray())
        r.fail(form);
    for (const auto& item : v.toArray()) {
        if (!item.isArray() || item.toArray().size() != 2)
            r.fail(form);
        const int token = r.wholeOf(item.toArray().at(0), "forced's token", 0, 100000);
        const int id = r.wholeOf(item.toArray().at(1), "forced's id", 0, std::numeric_limits<int>::max());
        if (!s.forced.empty() && token <= s.forced.back().first)
            r.fail(form);
        s.forced.emplace_back(token, id);
    }
}

// "zoom": [x, y, width, height], the heatmap's view in cells (x keys, y queries); null for the whole map.
void readZoom(const StepReader& r, const QJsonObject& o, WindowState& s) {
    const auto v = o.value(QStringLiteral("zoom"));
    if (v.isNull()) {
        s.zoom = QRectF();
        return;
    }
    if (!v.isArray() || v.toArray().size() != 4)
        r.fail(QStringLiteral("\"zoom\" must be [x, y, width, height] in cells, or null for the whole map"));
    const auto a = v.toArray();
    constexpr double far = 1 << 20;
    s.zoom =
        QRectF(r.numberOf(a.at(0), "zoom's x", -0.5, far), r.numberOf(a.at(1), "zoom's y", -0.5, far),
               r.numberOf(a.at(2), "zoom's width", 1.0, far), r.numberOf(a.at(3), "zoom's height", 1.0, far));
}

// A highlight given replaces the one before whole, so `highlight` starts empty.
void readHighlight(const StepReader& r, LessonHighlight& highlight) {
    highlight = LessonHighlight{};
    const auto h = r.object("highlight");
    for (auto it = h.begin(); it != h.end(); ++it)
        if (it.key() != QLatin1String("cell") && it.key() != QLatin1String("tile"))
            r.fail(QStringLiteral("\"highlight\" has \"cell\": [row, column] and \"tile\": [layer, head], "
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
        highlight.cellRow = r.wholeOf(a, "highlight.cell's row", 0, 1 << 20);
        highlight.cellColumn = r.wholeOf(b, "highlight.cell's column", 0, 1 << 20);
    }
    if (h.contains(QStringLiteral("tile"))) {
        const auto [a, b] = pair("tile");
        highlight.tileLayer = r.wholeOf(a, "highlight.tile's layer", 0, 4095);
        highlight.tileHead = r.head(b, "highlight.tile's head");
    }
}

} // namespace

LessonStep LessonStepReader::read(const QJsonObject& o, int index, const LessonStep& before) {
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
    readRun(r, index, s);
    if (r.has("forced"))
        readForced(r, o, s);
    readView(r, o, s);
    if (r.has("zoom"))
        readZoom(r, o, s);
    if (r.has("scale"))
        readScale(r, s);
    if (r.has("value_weighted"))
        s.valueWeighted = r.boolean("value_weighted");
    if (r.has("inside_stage"))
        s.insideStage = r.whole("inside_stage", 0, 5);
    if (r.has("train"))
        s.train = readTraining(r, o.value(QStringLiteral("train")));
    if (r.has("frame"))
        readFrame(r, o, s);
    if (r.has("highlight") && o.value(QStringLiteral("highlight")).isNull())
        step.highlight = LessonHighlight{};
    else if (r.has("highlight"))
        readHighlight(r, step.highlight);
    return step;
}

} // namespace ui
