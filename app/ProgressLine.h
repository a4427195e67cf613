#pragma once
// The terminal commands' one progress line on stderr: redrawn in place on a terminal; on a log (stderr not
// a terminal) each update is a line of its own, so the log keeps them all and no \r garbles it.

#include <string>

class ProgressLine {
public:
    ProgressLine();
    bool tty() const { return tty_; }
    /// keep: the line stays on screen (a result, the last line) rather than being overwritten next time.
    void show(const std::string& text, bool keep = false) const;
    /// Takes an unfinished line off a terminal (nothing to do on a log).
    void clear() const;

private:
    bool tty_;
};
