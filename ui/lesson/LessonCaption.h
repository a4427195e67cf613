#pragma once
// A lesson step's caption: plain text with *emphasis*, **strong** and blank-line paragraphs, and
// placeholders the player fills from the live model, so a number a caption quotes is the one on screen:
//   {weight}  {weight:R,C}   the shown head's weight at the highlighted cell (or at row R, column C)
//   {query}  {key}           the highlighted cell's row and column tokens
//   {src:I}  {tgt:I}         a source or target token
//   {next}  {next_p}         the most likely next token and its probability
//   {output}                 the text decoded so far;  {step}: tokens decoded
//   {score}  {scaled}  {softmax}   the Inside row's q·k, q·k ÷ √d_k and weight at the highlighted column
//   {d_k}  {sqrt_d_k}  {d_model}  {heads}  {layers}   the model's sizes
//   {similarity:P,Q}         cosine similarity of the positional encodings of positions P and Q
//   {induction}  {previous}  the shown head's induction and previous-token scores (the Heads page)
// "{{" and "}}" are literal braces.

#include <QString>
#include <QStringList>

#include <functional>
#include <optional>
#include <vector>

namespace ui {

/// A placeholder's value as text, or nothing when the window does not show it now.
using CaptionLookup =
    std::function<std::optional<QString>(const QString& name, const std::vector<int>& args)>;

class LessonCaption {
public:
    /// The placeholders a caption may use ("weight", "src", …).
    static QStringList names();
    /// False with a message naming the first bad placeholder or unbalanced brace.
    static bool check(const QString& caption, QString* error);
    /// Rich text for a label: the emphasis as <i> and <b>, paragraphs as <p>, placeholders filled by lookup
    /// (one it cannot fill shows as "…" and is added to `missing`).
    static QString toHtml(const QString& caption, const CaptionLookup& lookup,
                          QStringList* missing = nullptr);
    /// The same as plain text, emphasis marks dropped: the command line's and the tests'.
    static QString toPlain(const QString& caption, const CaptionLookup& lookup,
                           QStringList* missing = nullptr);
};

} // namespace ui
