#pragma once
// Runs a script of tests/reference with Debian's python3 (python3-torch), as the tests that compare with an
// independent PyTorch computation do.

#include <QFileInfo>
#include <QProcess>
#include <QString>
#include <QStringList>

/// Runs `python3 SCRIPT ARGS…` in tests/reference. False with *why set when it did not succeed; *why starts
/// with "skipped: " when the reference is not available here (no python3, or the script's exit code 77).
inline bool runReferenceScript(const QStringList& args, QString* why) {
    const auto python = QStringLiteral("/usr/bin/python3");
    if (!QFileInfo::exists(python)) {
        *why = QStringLiteral("skipped: /usr/bin/python3 (Debian's, with python3-torch) is not installed");
        return false;
    }
    QProcess p;
    p.setWorkingDirectory(QStringLiteral(ATTNSCOPE_SOURCE_DIR "/tests/reference"));
    p.start(python, args);
    if (!p.waitForFinished(300000)) {
        *why = QStringLiteral("%1 did not finish").arg(args.value(0));
        return false;
    }
    const auto err = QString::fromUtf8(p.readAllStandardError()).trimmed();
    if (p.exitStatus() == QProcess::NormalExit && p.exitCode() == 77) {
        *why = QStringLiteral("skipped: ") + err;
        return false;
    }
    if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        *why = QStringLiteral("%1 failed: %2").arg(args.value(0), err);
        return false;
    }
    return true;
}
