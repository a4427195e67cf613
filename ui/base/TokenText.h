#pragma once
// How a token is written on screen, the same in strips, axes and tooltips: whitespace made visible,
// unknown pieces marked rather than dropped.

#include "core/text/Token.h"

#include <QString>
#include <QStringList>

#include <algorithm>
#include <string>
#include <vector>

namespace ui {

/// UTF-8 text with every byte that is not part of a valid character written as <0xF0>: a byte-level BPE
/// token can hold part of a character (an emoji's first bytes, say), and U+FFFD would hide which part.
inline QString utf8WithByteMarks(const std::string& bytes) {
    QString out;
    std::size_t i = 0;
    while (i < bytes.size()) {
        const auto b = static_cast<unsigned char>(bytes[i]);
        const std::size_t len = b < 0x80             ? 1
                                : (b & 0xE0) == 0xC0 ? 2
                                : (b & 0xF0) == 0xE0 ? 3
                                : (b & 0xF8) == 0xF0 ? 4
                                                     : 0;
        bool whole = len > 0 && i + len <= bytes.size();
        for (std::size_t k = 1; whole && k < len; ++k)
            whole = (static_cast<unsigned char>(bytes[i + k]) & 0xC0) == 0x80;
        if (whole) {
            // Overlong forms and surrogates have the right shape but decode to U+FFFD; a real U+FFFD is EF BF
            // BD.
            const QString c = QString::fromUtf8(bytes.data() + i, static_cast<qsizetype>(len));
            if (!c.contains(QChar::ReplacementCharacter) || bytes.compare(i, len, "\xEF\xBF\xBD") == 0) {
                out += c;
                i += len;
                continue;
            }
        }
        out += QStringLiteral("<0x%1>").arg(
            QString::number(b, 16).toUpper().rightJustified(2, QLatin1Char('0')));
        i += 1;
    }
    return out;
}

/// At most maxChars characters, the last of them "…" when some were cut: a 50,000-token vocabulary has
/// tokens of 60 dashes, which would take a chart's width from its bars.
inline QString elided(const QString& s, int maxChars) {
    if (s.size() <= maxChars)
        return s;
    // Never half a character: an emoji is two UTF-16 units, and the cut must not fall between them.
    int keep = std::max(maxChars - 1, 0);
    if (keep > 0 && s.at(keep - 1).isHighSurrogate())
        --keep;
    return s.left(keep) + QChar(0x2026);
}

inline QString tokenDisplayText(const core::Token& t) {
    QString s = utf8WithByteMarks(t.text);
    s.replace(QLatin1Char(' '), QChar(0x2423));  // ␣
    s.replace(QLatin1Char('\n'), QChar(0x21B5)); // ↵
    s.replace(QLatin1Char('\t'), QChar(0x21E5)); // ⇥
    if (t.unknown)
        return QStringLiteral("\u27E8?%1\u27E9").arg(s); // ⟨?é⟩
    return s;
}

/// Axis labels for tokens: the first `count` of them (all when −1), each cut to maxChars when given.
inline QStringList tokenLabels(const std::vector<core::Token>& tokens, int count = -1, int maxChars = 0) {
    QStringList out;
    const int n =
        count < 0 ? static_cast<int>(tokens.size()) : std::min(count, static_cast<int>(tokens.size()));
    for (int i = 0; i < n; ++i) {
        const auto text = tokenDisplayText(tokens[static_cast<std::size_t>(i)]);
        out << (maxChars > 0 ? elided(text, maxChars) : text);
    }
    return out;
}

} // namespace ui
