// Whole-file reads refuse what is not a regular file without waiting on it, and atomic writes leave the old
// file whole whatever goes wrong: a full disk, a read-only folder, a device or a planted link at the target.

#include "core/base/Errors.h"
#include "core/base/Files.h"

#include <QtTest>

#include <csignal>
#include <filesystem>
#include <thread>

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

class TestFiles : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void readsRegularFile();
    void refusesNonRegular_data();
    void refusesNonRegular();
    void writeReplacesWhole();
    void writeKeepsPermissions();
    void refusesNonRegularTarget_data();
    void refusesNonRegularTarget();
    void fullDiskKeepsOldFile();
    void readOnlyFolderKeepsOldFile();
};

namespace {

// Names in a folder other than `keep`: a failed write must not leave its temporary behind.
QStringList strays(const QString& dir, const QString& keep) {
    QStringList out;
    for (const auto& e : fs::directory_iterator(dir.toStdString()))
        if (QString::fromStdString(e.path().filename().string()) != keep)
            out << QString::fromStdString(e.path().filename().string());
    return out;
}

} // namespace

void TestFiles::readsRegularFile() {
    QTemporaryDir tmp;
    const auto path = (tmp.path() + QStringLiteral("/a.txt")).toStdString();
    core::writeFileAtomically(path, std::string("hello\0world", 11));
    QCOMPARE(core::readFile(path), std::string("hello\0world", 11));
    core::writeFileAtomically(path, "");
    QCOMPARE(core::readFile(path), std::string());
}

void TestFiles::refusesNonRegular_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("fragment");
    QTest::newRow("fifo") << "fifo"
                          << "it is a FIFO, not a regular file";
    QTest::newRow("directory") << "dir"
                               << "it is a directory, not a regular file";
    QTest::newRow("device") << "device"
                            << "it is a device, not a regular file";
    QTest::newRow("missing") << "missing"
                             << "No such file or directory";
}

void TestFiles::refusesNonRegular() {
    QFETCH(QString, kind);
    QFETCH(QString, fragment);
    QTemporaryDir tmp;
    std::string path = (tmp.path() + QStringLiteral("/model.safetensors")).toStdString();
    if (kind == QStringLiteral("fifo"))
        QCOMPARE(::mkfifo(path.c_str(), 0600), 0);
    else if (kind == QStringLiteral("dir"))
        fs::create_directory(path);
    else if (kind == QStringLiteral("device"))
        path = "/dev/zero"; // reading it to the end would never finish
    // A FIFO with no writer used to block the open forever; a watchdog turns a hang into a failure.
    std::atomic<bool> done{false};
    std::thread watchdog([&] {
        for (int i = 0; i < 100 && !done; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        if (!done) {
            std::fprintf(stderr, "readFile(%s) still blocked after 10 s\n", path.c_str());
            std::abort();
        }
    });
    QString message;
    try {
        core::readFile(path);
    } catch (const core::IoError& e) {
        message = QString::fromUtf8(e.what());
    }
    done = true;
    watchdog.join();
    QVERIFY2(message.contains(QString::fromStdString(path)), qPrintable(message));
    QVERIFY2(message.contains(fragment), qPrintable(message));
}

void TestFiles::writeReplacesWhole() {
    QTemporaryDir tmp;
    const auto path = (tmp.path() + QStringLiteral("/out.json")).toStdString();
    core::writeFileAtomically(path, "old");
    core::writeFileAtomically(path, std::string(1 << 20, 'n'));
    QCOMPARE(core::readFile(path).size(), std::size_t(1 << 20));
    QCOMPARE(strays(tmp.path(), QStringLiteral("out.json")), QStringList());
}

void TestFiles::writeKeepsPermissions() {
    QTemporaryDir tmp;
    const auto path = (tmp.path() + QStringLiteral("/new.csv")).toStdString();
    const mode_t mask = ::umask(022);
    core::writeFileAtomically(path, "a");
    struct stat st {};
    QCOMPARE(::stat(path.c_str(), &st), 0);
    QCOMPARE(st.st_mode & 0777, mode_t(0644)); // a new file, as any program would create it
    QCOMPARE(::chmod(path.c_str(), 0600), 0);
    core::writeFileAtomically(path, "b");
    QCOMPARE(::stat(path.c_str(), &st), 0);
    QCOMPARE(st.st_mode & 0777, mode_t(0600)); // a replaced file keeps what its owner chose
    ::umask(mask);
}

void TestFiles::refusesNonRegularTarget_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("fragment");
    QTest::newRow("device") << "device"
                            << "it is a device, not a regular file";
    QTest::newRow("fifo") << "fifo"
                          << "it is a FIFO, not a regular file";
    QTest::newRow("directory") << "dir"
                               << "it is a directory, not a regular file";
}

void TestFiles::refusesNonRegularTarget() {
    QFETCH(QString, kind);
    QFETCH(QString, fragment);
    QTemporaryDir tmp;
    std::string path = (tmp.path() + QStringLiteral("/target")).toStdString();
    if (kind == QStringLiteral("device"))
        path = "/dev/null"; // renaming over it would need root, but the write must not even try
    else if (kind == QStringLiteral("fifo"))
        QCOMPARE(::mkfifo(path.c_str(), 0600), 0);
    else
        fs::create_directory(path);
    const auto before = fs::status(path).type();
    try {
        core::writeFileAtomically(path, "x");
        QFAIL("wrote over something that is not a regular file");
    } catch (const core::IoError& e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(fragment), e.what());
    }
    QCOMPARE(fs::status(path).type(), before);
    if (kind != QStringLiteral("device"))
        QCOMPARE(strays(tmp.path(), QStringLiteral("target")), QStringList());
}

void TestFiles::fullDiskKeepsOldFile() {
    // A file-size limit makes write() fail the way a full disk does (EFBIG instead of ENOSPC), in this
    // process only and without root.
    QTemporaryDir tmp;
    const auto path = (tmp.path() + QStringLiteral("/checkpoint.bin")).toStdString();
    core::writeFileAtomically(path, "the previous checkpoint");
    struct rlimit old {};
    QCOMPARE(::getrlimit(RLIMIT_FSIZE, &old), 0);
    const auto oldHandler = std::signal(SIGXFSZ, SIG_IGN); // else the kernel ends the process
    struct rlimit small = old;
    small.rlim_cur = 4096;
    QCOMPARE(::setrlimit(RLIMIT_FSIZE, &small), 0);
    QString message;
    try {
        core::writeFileAtomically(path, std::string(1 << 20, 'x'));
    } catch (const core::IoError& e) {
        message = QString::fromUtf8(e.what());
    }
    ::setrlimit(RLIMIT_FSIZE, &old);
    std::signal(SIGXFSZ, oldHandler);
    QVERIFY2(message.startsWith(QStringLiteral("cannot write ") + QString::fromStdString(path)),
             qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("too large")), qPrintable(message));
    QCOMPARE(core::readFile(path), std::string("the previous checkpoint"));
    QCOMPARE(strays(tmp.path(), QStringLiteral("checkpoint.bin")), QStringList());
}

void TestFiles::readOnlyFolderKeepsOldFile() {
    QTemporaryDir tmp;
    const auto path = (tmp.path() + QStringLiteral("/settings.json")).toStdString();
    core::writeFileAtomically(path, "{}");
    QCOMPARE(::chmod(tmp.path().toLocal8Bit().constData(), 0555), 0);
    // The write runs in a child: root ignores folder permissions, so there the child first becomes nobody.
    int pipeFds[2];
    QCOMPARE(::pipe(pipeFds), 0);
    const pid_t child = ::fork();
    QVERIFY(child >= 0);
    if (child == 0) {
        ::close(pipeFds[0]);
        if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0))
            ::_exit(3);
        std::string message = "no error";
        try {
            core::writeFileAtomically(path, R"({"a": 1})");
        } catch (const core::IoError& e) {
            message = e.what();
        }
        const auto written = ::write(pipeFds[1], message.data(), message.size());
        ::_exit(written == static_cast<ssize_t>(message.size()) ? 0 : 4);
    }
    ::close(pipeFds[1]);
    std::string message;
    char buf[512];
    for (ssize_t n; (n = ::read(pipeFds[0], buf, sizeof buf)) > 0;)
        message.append(buf, static_cast<std::size_t>(n));
    ::close(pipeFds[0]);
    int status = 0;
    ::waitpid(child, &status, 0);
    ::chmod(tmp.path().toLocal8Bit().constData(), 0755);
    QVERIFY2(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the writing child failed");
    QVERIFY2(QString::fromStdString(message).contains(QStringLiteral("Permission denied")), message.c_str());
    QCOMPARE(core::readFile(path), std::string("{}"));
}

QTEST_APPLESS_MAIN(TestFiles)
#include "test_files.moc"
