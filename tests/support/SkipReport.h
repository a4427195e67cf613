#pragma once
// A test that cannot run here for want of something outside the program (Python with PyTorch, node and its
// package, a renderer, OpenBLAS) says why with QSKIP_MISSING; its executable then ends with exit code 77,
// which ctest reports as skipped rather than passed (tests/CMakeLists.txt sets SKIP_RETURN_CODE 77 on every
// test; a test with Qt's own mains never returns 77 unless 77 of its functions failed, and these mains turn
// that into 78), and scripts/test.sh lists every skip with its reason.

#include <QCoreApplication>
#ifdef QT_WIDGETS_LIB
#include <QApplication>
#endif
#include <QtTest>

namespace skipreport {
inline bool& missing() {
    static bool m = false;
    return m;
}
/// Qt Test's exit code (the number of failures), or 77 when nothing failed but something was skipped; 77
/// failures become 78, so a failure never reads as a skip.
inline int exitCode(int failures) {
    if (failures == 77)
        return 78;
    return failures == 0 && missing() ? 77 : failures;
}
} // namespace skipreport

#define QSKIP_MISSING(why)                                                                                   \
    do {                                                                                                     \
        skipreport::missing() = true;                                                                        \
        QSKIP(why);                                                                                          \
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
