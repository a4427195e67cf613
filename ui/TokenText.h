#pragma once
// How a token is written on screen, the same in strips, axes and tooltips: whitespace made visible,
// unknown pieces marked rather than dropped.

#include "core/Token.h"

#include <QString>

namespace ui {

inline QString tokenDisplayText(const core::Token& t) {
    QString s = QString::fromStdString(t.text);
    s.replace(QLatin1Char(' '), QChar(0x2423));  // ␣
    s.replace(QLatin1Char('\n'), QChar(0x21B5)); // ↵
    s.replace(QLatin1Char('\t'), QChar(0x21E5)); // ⇥
    if (t.unknown)
        return QStringLiteral("\u27E8?%1\u27E9").arg(s); // ⟨?é⟩
    return s;
}

} // namespace ui
