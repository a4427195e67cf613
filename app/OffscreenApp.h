#pragma once
// An application object for terminal subcommands that drive real widgets (bench's paint rows, lesson
// --play): offscreen unless QT_QPA_PLATFORM says otherwise, without the offscreen platform's warning about
// size hints, and with the C locale for numbers.

#include <QApplication>

#include <memory>

std::unique_ptr<QApplication> offscreenApplication();
