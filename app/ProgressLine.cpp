#include "app/ProgressLine.h"

#include <iostream>

#include <unistd.h>

ProgressLine::ProgressLine() : tty_(isatty(STDERR_FILENO) == 1) {}

void ProgressLine::show(const std::string& text, bool keep) const {
    if (tty_)
        std::cerr << "\r" << text << "\033[K" << (keep ? "\n" : "")
                  << std::flush; // \033[K: a longer line's rest
    else
        std::cerr << text << "\n" << std::flush;
}

void ProgressLine::clear() const {
    if (tty_)
        std::cerr << "\r\033[K" << std::flush;
}
