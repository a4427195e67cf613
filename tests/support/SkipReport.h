#pragma once
// Skips that ctest sees, and that CI does not let pass. Every skip names its cause, and the cause is one of
// two kinds:
//
// - QSKIP_MISSING(why): something scripts/test.sh installs (through scripts/setup-deps.sh --tests) is
//   missing: Python with PyTorch, node and its npm packages, the SVG and PDF renderers, OpenBLAS, oneDNN, xz.
//   By hand that is a skip; under CI (CI set, as .ci/run sets it) test.sh has just installed it, so its
//   absence is a broken setup, and the test fails with the reason instead: a CI run where every reference
//   comparison skipped must not be green.
// - QSKIP_MACHINE(why): something a fresh CI machine may lack and no install gives (a second core). A skip
//   everywhere; its reason starts with "this machine: ", which is how scripts/test.sh tells it from a skip
//   CI must not have.
//
// Either way the executable ends with exit code 77, which ctest reports as skipped rather than passed
// (tests/CMakeLists.txt sets SKIP_RETURN_CODE 77 on every test), and scripts/test.sh lists every skip with
// its reason. That needs this file's mains: Qt's own return the number of failures, 0 for a skip. A test
// with these mains never returns 77 unless 77 of its functions failed, and these mains turn that into 78.
// tests/install/check-skips.sh refuses a bare QSKIP, or these macros without these mains.

#include <QByteArray>
#include <QCoreApplication>
#include <QString>
#ifdef QT_WIDGETS_LIB
#include <QApplication>
#endif
#include <QtTest>

namespace skipreport {
inline bool& skipped() {
    static bool s = false;
    return s;
}
/// A CI run: CI set and not empty, as scripts/test.sh reads it (CI services set CI=true, and so does
/// .ci/run).
inline bool underCi() {
    return !qgetenv("CI").isEmpty();
}
/// What QFAIL says under CI in place of a QSKIP_MISSING skip.
inline QString ciFailure(const char* why) {
    QString cause = QString::fromUtf8(why);
    if (cause.startsWith(QStringLiteral("skipped: ")))
        cause.remove(0, 9);
    return QStringLiteral(
               "not a skip under CI (CI is set): scripts/test.sh installs what this test needs, so "
               "it is missing only if that install went wrong: ") +
           cause;
}
/// Qt Test's exit code (the number of failures), or 77 when nothing failed but something was skipped; 77
/// failures become 78, so a failure never reads as a skip.
inline int exitCode(int failures) {
    if (failures == 77)
        return 78;
    return failures == 0 && skipped() ? 77 : failures;
}
} // namespace skipreport

#define QSKIP_MISSING(why)                                                                                   \
    do {                                                                                                     \
        if (skipreport::underCi())                                                                           \
            QFAIL(qPrintable(skipreport::ciFailure(why)));                                                   \
        skipreport::skipped() = true;                                                                        \
        QSKIP(why);                                                                                          \
    } while (false)

#define QSKIP_MACHINE(why)                                                                                   \
    do {                                                                                                     \
        skipreport::skipped() = true;                                                                        \
        QSKIP(qPrintable(QStringLiteral("this machine: ") + QString::fromUtf8(why)));                        \
    } while (false)

// QTEST_GUILESS_MAIN and QTEST_MAIN, with the exit code above.
#define ATTNSCOPE_GUILESS_MAIN(TestObject)                                                                   \
    int main(int argc, char* argv[]) {                                                                       \
        QCoreApplication app(argc, argv);                                                                    \
        app.setAttribute(Qt::AA_Use96Dpi, true);                                                             \
        TestObject tc;                                                                                       \
        QTEST_SET_MAIN_SOURCE_PATH                                                                           \
        return skipreport::exitCode(QTest::qExec(&tc, argc, argv));                                          \
    }
#define ATTNSCOPE_WIDGETS_MAIN(TestObject)                                                                   \
    int main(int argc, char* argv[]) {                                                                       \
        QApplication app(argc, argv);                                                                        \
        app.setAttribute(Qt::AA_Use96Dpi, true);                                                             \
        TestObject tc;                                                                                       \
        QTEST_SET_MAIN_SOURCE_PATH                                                                           \
        return skipreport::exitCode(QTest::qExec(&tc, argc, argv));                                          \
    }
