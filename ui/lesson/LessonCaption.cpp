#include "ui/lesson/LessonCaption.h"

#include <map>

namespace ui {

namespace {

// Each placeholder and the argument counts it takes.
const std::map<QString, std::vector<int>>& arities() {
    static const std::map<QString, std::vector<int>> a{
        {QStringLiteral("weight"), {0, 2}},
        {QStringLiteral("query"), {0}},
        {QStringLiteral("key"), {0}},
        {QStringLiteral("src"), {1}},
        {QStringLiteral("tgt"), {1}},
        {QStringLiteral("next"), {0}},
        {QStringLiteral("next_p"), {0}},
        {QStringLiteral("output"), {0}},
        {QStringLiteral("step"), {0}},
        {QStringLiteral("score"), {0}},
        {QStringLiteral("scaled"), {0}},
        {QStringLiteral("softmax"), {0}},
        {QStringLiteral("d_k"), {0}},
        {QStringLiteral("sqrt_d_k"), {0}},
        {QStringLiteral("d_model"), {0}},
        {QStringLiteral("heads"), {0}},
        {QStringLiteral("layers"), {0}},
        {QStringLiteral("similarity"), {2}},
        {QStringLiteral("induction"), {0}},
        {QStringLiteral("previous"), {0}},
        // The Train tab's run: the step its induction head formed, and the log row of the frame shown.
        {QStringLiteral("formed"), {0}},
        {QStringLiteral("frame_step"), {0}},
        {QStringLiteral("frame_loss"), {0}},
        {QStringLiteral("frame_induction"), {0}},
        {QStringLiteral("frame_previous"), {0}}};
    return a;
}

struct Piece {
    bool placeholder = false;
    QString text; // literal text, or the placeholder's name
    std::vector<int> args;
};

// Splits a caption into literal text and placeholders; false with a message on a malformed one.
bool split(const QString& caption, std::vector<Piece>* pieces, QString* error) {
    const auto fail = [error](const QString& m) {
        if (error)
            *error = m;
        return false;
    };
    QString literal;
    for (int i = 0; i < caption.size(); ++i) {
        const QChar c = caption.at(i);
        if ((c == QLatin1Char('{') || c == QLatin1Char('}')) && i + 1 < caption.size() &&
            caption.at(i + 1) == c) {
            literal += c;
            ++i;
            continue;
        }
        if (c == QLatin1Char('}'))
            return fail(QStringLiteral("a \"}\" without its \"{\" (write \"}}\" for a brace)"));
        if (c != QLatin1Char('{')) {
            literal += c;
            continue;
        }
        const int end = caption.indexOf(QLatin1Char('}'), i);
        if (end < 0)
            return fail(QStringLiteral("a \"{\" without its \"}\" (write \"{{\" for a brace)"));
        const QString body = caption.mid(i + 1, end - i - 1).trimmed();
        Piece p;
        p.placeholder = true;
        const int colon = body.indexOf(QLatin1Char(':'));
        p.text = colon < 0 ? body : body.left(colon).trimmed();
        const auto known = arities().find(p.text);
        if (known == arities().end())
            return fail(QStringLiteral("unknown placeholder {%1} (known: %2)")
                            .arg(body, LessonCaption::names().join(QStringLiteral(", "))));
        if (colon >= 0)
            for (const auto& a : body.mid(colon + 1).split(QLatin1Char(','))) {
                bool ok = false;
                const int v = a.trimmed().toInt(&ok);
                if (!ok || v < 0)
                    return fail(
                        QStringLiteral("{%1}: \"%2\" is not a whole number ≥ 0").arg(body, a.trimmed()));
                p.args.push_back(v);
            }
        bool arity = false;
        for (int n : known->second)
            arity = arity || int(p.args.size()) == n;
        if (!arity)
            return fail(QStringLiteral("{%1} takes %2 number(s) after a colon, not %3")
                            .arg(body)
                            .arg(known->second.back())
                            .arg(p.args.size()));
        if (!literal.isEmpty())
            pieces->push_back({false, literal, {}});
        literal.clear();
        pieces->push_back(std::move(p));
        i = end;
    }
    if (!literal.isEmpty())
        pieces->push_back({false, literal, {}});
    return true;
}

QString fill(const Piece& p, const CaptionLookup& lookup, QStringList* missing) {
    const auto v = lookup ? lookup(p.text, p.args) : std::nullopt;
    if (v)
        return *v;
    if (missing)
        missing->append(p.text);
    return QStringLiteral("…");
}

// *x* and **x** to <i> and <b> (html) or to x (plain) in text already escaped for it; an unpaired mark
// stays as it is ("2 * 3").
QString emphasis(const QString& text, bool html) {
    QString out;
    bool strong = false, em = false;
    for (int i = 0; i < text.size(); ++i) {
        if (text.at(i) != QLatin1Char('*')) {
            out += text.at(i);
            continue;
        }
        const bool two = i + 1 < text.size() && text.at(i + 1) == QLatin1Char('*');
        bool& open = two ? strong : em;
        const bool pairs = open || (two ? text.indexOf(QStringLiteral("**"), i + 2) >= 0
                                        : text.indexOf(QLatin1Char('*'), i + 1) >= 0);
        if (!pairs)
            out += two ? QStringLiteral("**") : QStringLiteral("*");
        else if (html)
            out += two ? (open ? QStringLiteral("</b>") : QStringLiteral("<b>"))
                       : (open ? QStringLiteral("</i>") : QStringLiteral("<i>"));
        if (pairs)
            open = !open;
        i += two ? 1 : 0;
    }
    return out;
}

} // namespace

QStringList LessonCaption::names() {
    QStringList out;
    for (const auto& [name, counts] : arities())
        out << name;
    return out;
}

bool LessonCaption::check(const QString& caption, QString* error) {
    std::vector<Piece> pieces;
    return split(caption, &pieces, error);
}

QString LessonCaption::toHtml(const QString& caption, const CaptionLookup& lookup, QStringList* missing) {
    std::vector<Piece> pieces;
    if (!split(caption, &pieces, nullptr))
        return caption.toHtmlEscaped();
    QString text;
    for (const auto& p : pieces)
        text += (p.placeholder ? fill(p, lookup, missing) : p.text).toHtmlEscaped();
    QString html;
    for (const auto& para : text.split(QStringLiteral("\n\n"), Qt::SkipEmptyParts))
        html += QStringLiteral("<p>%1</p>")
                    .arg(emphasis(para.trimmed(), true).replace(QLatin1Char('\n'), QStringLiteral("<br>")));
    return html;
}

QString LessonCaption::toPlain(const QString& caption, const CaptionLookup& lookup, QStringList* missing) {
    std::vector<Piece> pieces;
    if (!split(caption, &pieces, nullptr))
        return caption;
    QString text;
    for (const auto& p : pieces)
        text += p.placeholder ? fill(p, lookup, missing) : p.text;
    return emphasis(text, false);
}

} // namespace ui
