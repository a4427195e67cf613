#pragma once
// The words of the Inside page: the heading over the charts and the line under each stage, which ties its
// formula to the hovered cell's own numbers ("q(“la”)·k(“house”) = 3.21; ÷ √64 = 0.40; softmax over the
// row → 0.934"). Plain functions of the row, kept out of the widget.

#include "ui/run/InsideResult.h"

#include <QCoreApplication>
#include <QString>

#include <array>

namespace ui {

class InsideText {
    Q_DECLARE_TR_FUNCTIONS(InsideText)
public:
    /// "Cross-attention · layer 1 · head 2 · query row 4 “anduvo” (the current decode step) · …";
    /// meanHead: the view asked for the mean of the heads, and head 0 is shown instead.
    static QString heading(const InsideResult& r, bool meanHead);
    /// The lines under stages 1–5 for key j, dimension d of the head and channel c of d_model (each in
    /// range for the row).
    static std::array<QString, 5> lines(const core::InsideRow& r, int j, int d, int c);
    /// A token as the lines quote it: “la”.
    static QString quoted(const std::vector<core::Token>& tokens, int i);

private:
    /// The same five lines for a recurrent model's row (InsideRow::recurrent): its query, additive terms,
    /// an unscaled softmax, and a context with no W_O after it.
    static std::array<QString, 5> recurrentLines(const core::InsideRow& r, int j, int d);
};

} // namespace ui
