#pragma once
// --figure: one figure of what the window shows (the head, the grid, the next-token chart or the positional
// curves), or every head of the kind as figures of their own, instead of the window's picture.

#include "app/gui/GuiOptions.h"

namespace ui {
class MainWindow;
}

/// Writes the figure(s) the options ask for from the window as it stands, prints what it wrote as one line
/// of JSON, and returns 0; throws std::runtime_error with the message of what could not be written.
int writeFigures(const GuiOptions& options, ui::MainWindow& window);
