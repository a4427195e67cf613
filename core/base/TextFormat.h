#pragma once
// Numbers in files other programs read (JSON, CSV) must not follow the user's locale: a German locale
// would write 0,25 and turn one number into two. These helpers write the same text everywhere.

#include <charconv>
#include <limits>
#include <locale>
#include <ostream>
#include <string>

namespace core {

/// The shortest text that reads back as exactly this float (so float32 round-trips), locale-independent.
inline std::string formatFloat(float v) {
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

/// The same for a double; a non-finite value, which JSON cannot hold, is written as null.
inline std::string formatDouble(double v) {
    if (!(v == v) || v == std::numeric_limits<double>::infinity() ||
        v == -std::numeric_limits<double>::infinity())
        return "null";
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

/// Switches a stream to the classic locale for its lifetime, so integers get no thousands separators.
class ClassicLocale {
public:
    explicit ClassicLocale(std::ostream& out) : out_(out), saved_(out.imbue(std::locale::classic())) {}
    ~ClassicLocale() { out_.imbue(saved_); }
    ClassicLocale(const ClassicLocale&) = delete;
    ClassicLocale& operator=(const ClassicLocale&) = delete;

private:
    std::ostream& out_;
    std::locale saved_;
};

} // namespace core
