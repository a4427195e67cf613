// The window's commands: `--startup-time` prints its two moments and always ends; `--screenshot` renders the
// real window offscreen; `--figure` writes one figure (or every head into a folder) and says what as JSON.

#include "tests/support/CliRunner.h"

#include <QDir>
#include <QRegularExpression>
#include <QSettings>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

using nlohmann::json;

class TestCliWindow : public QObject, protected CliRunner {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void startupTime();
    void screenshot();
    void screenshotFormats();
    void screenshotUnderAMemoryLimit();
    void screenshotKeepsTheRememberedRun();
    void figures();

private:
    QString model_, lm_;
};

void TestCliWindow::initTestCase() {
    QVERIFY(tmp_.isValid());
    model_ = initModel(QStringLiteral("ed"), edConfigJson, QStringLiteral("4"));
    lm_ = initModel(QStringLiteral("lm"), lmConfigJson);
    QVERIFY(!model_.isEmpty() && !lm_.isEmpty());
}

void TestCliWindow::startupTime() {
    // A first start (empty settings): the window opens on the built-in model and its example sentence, and
    // the probe prints both moments, in order, then quits by itself.
    QTemporaryDir settings;
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), settings.path());
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    QByteArray out;
    QCOMPARE(run({QStringLiteral("--startup-time")}, &out, nullptr, env), 0);
    const QRegularExpression first(QStringLiteral("^first paint +(\\d+) ms$"),
                                   QRegularExpression::MultilineOption);
    const QRegularExpression shown(QStringLiteral("^analysis shown +(\\d+) ms$"),
                                   QRegularExpression::MultilineOption);
    const auto f = first.match(QString::fromUtf8(out)), a = shown.match(QString::fromUtf8(out));
    QVERIFY2(f.hasMatch() && a.hasMatch(), out.constData());
    qInfo("start-up: first paint %s ms, analysis shown %s ms", qPrintable(f.captured(1)),
          qPrintable(a.captured(1)));
    QVERIFY(f.captured(1).toInt() > 0);
    QVERIFY(a.captured(1).toInt() >= f.captured(1).toInt());
    QCOMPARE(run({QStringLiteral("--startup-time"), QStringLiteral("--screenshot"), QStringLiteral("x.png")},
                 &out),
             2);

    // --model DIR on a first start: a task model opens on its own example (config.json's "example") and the
    // probe finishes; it used to wait forever on an empty Source field.
    QTemporaryDir fresh;
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), fresh.path());
    QCOMPARE(run({QStringLiteral("--startup-time"), QStringLiteral("--model"),
                  QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/addition")},
                 &out, nullptr, env),
             0);
    QVERIFY2(shown.match(QString::fromUtf8(out)).hasMatch(), out.constData());
    // A model without an example and no text of a last run: it says there is nothing to analyse, and ends.
    QTemporaryDir fresher;
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), fresher.path());
    QCOMPARE(run({QStringLiteral("--startup-time"), QStringLiteral("--model"), model_}, &out, nullptr, env),
             0);
    QVERIFY2(out.contains("nothing to analyse"), out.constData());
}

void TestCliWindow::screenshot() {
    const auto file = tmp_.filePath(QStringLiteral("shot.png"));
    QByteArray out, err;
    QCOMPARE(
        run({QStringLiteral("--screenshot"), file, QStringLiteral("--model"), model_, QStringLiteral("--src"),
             QStringLiteral("abc"), QStringLiteral("--steps"), QStringLiteral("2"), QStringLiteral("--kind"),
             QStringLiteral("cross"), QStringLiteral("--size"), QStringLiteral("1000x700")},
            &out, &err),
        0);
    QVERIFY2(out.contains("wrote"), out.constData());
    QFile f(file);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const auto png = f.readAll();
    // PNG signature, then the IHDR chunk: width and height as big-endian 32-bit numbers.
    QVERIFY(png.startsWith("\x89PNG\r\n\x1a\n"));
    auto be32 = [&](int at) {
        return (quint32(quint8(png[at])) << 24) | (quint32(quint8(png[at + 1])) << 16) |
               (quint32(quint8(png[at + 2])) << 8) | quint32(quint8(png[at + 3]));
    };
    QCOMPARE(be32(16), quint32(1000));
    QCOMPARE(be32(20), quint32(700));
    QVERIFY(png.size() > 20000); // a real window, not a blank frame
    QCOMPARE(run({QStringLiteral("--screenshot"), tmp_.filePath(QStringLiteral("pe.png")),
                  QStringLiteral("--model"), lm_, QStringLiteral("--tab"), QStringLiteral("positional")}),
             0);
    QVERIFY(QFileInfo(tmp_.filePath(QStringLiteral("pe.png"))).size() > 20000);
}

void TestCliWindow::screenshotUnderAMemoryLimit() {
    // The largest picture under address-space limits around what it needs: a picture or a message and exit
    // 2, never an abort (std::bad_alloc thrown in the plots' painting reached std::terminate) or a crash.
    const auto pdf = tmp_.filePath(QStringLiteral("limited.pdf"));
    for (const char* limit : {"1000000", "1300000", "1800000", "2600000", "unlimited"}) {
        QProcess p;
        p.start(QStringLiteral("/bin/sh"),
                {QStringLiteral("-c"), QStringLiteral("ulimit -v %1 && exec \"$0\" \"$@\"").arg(limit),
                 QStringLiteral(ATTNSCOPE_BINARY), QStringLiteral("--screenshot"), pdf,
                 QStringLiteral("--model"), model_, QStringLiteral("--src"), QStringLiteral("abc"),
                 QStringLiteral("--size"), QStringLiteral("8000x8000")});
        QVERIFY(p.waitForFinished(120000));
        const auto err = p.readAllStandardError();
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QVERIFY2(p.exitCode() == 0 || p.exitCode() == 2,
                 qPrintable(QStringLiteral("ulimit -v %1: exit %2: %3")
                                .arg(limit)
                                .arg(p.exitCode())
                                .arg(QString::fromUtf8(err.right(300)))));
        if (p.exitCode() == 2)
            QVERIFY2(err.contains("memory"), err.right(300).constData());
        else
            QVERIFY2(!err.contains("not active"), "a picture was written with plots left unpainted");
        qInfo("ulimit -v %s: exit %d, %s", limit, p.exitCode(), err.trimmed().split('\n').last().constData());
    }
}

void TestCliWindow::screenshotFormats() {
    // The name's suffix is the format: SVG and PDF are written as such (they used to get PNG bytes), and a
    // name that asks for anything else is refused before any work, with nothing written.
    const QStringList common{QStringLiteral("--model"), model_,
                             QStringLiteral("--src"),   QStringLiteral("abc"),
                             QStringLiteral("--size"),  QStringLiteral("1000x700")};
    QByteArray out, err;
    const auto svg = tmp_.filePath(QStringLiteral("window.svg"));
    QCOMPARE(run(QStringList{QStringLiteral("--screenshot"), svg} + common, &out, &err), 0);
    QFile s(svg);
    QVERIFY(s.open(QIODevice::ReadOnly));
    const auto svgBytes = s.readAll();
    QVERIFY2(svgBytes.startsWith("<?xml") && svgBytes.contains("<svg"), svgBytes.left(64).constData());
    const auto pdf = tmp_.filePath(QStringLiteral("window.pdf"));
    QCOMPARE(run(QStringList{QStringLiteral("--screenshot"), pdf} + common, &out, &err), 0);
    QFile p(pdf);
    QVERIFY(p.open(QIODevice::ReadOnly));
    const auto pdfBytes = p.readAll();
    QVERIFY(pdfBytes.startsWith("%PDF-") && !pdfBytes.contains("/DCTDecode"));
    qInfo("window as SVG: %lld bytes; as PDF: %lld bytes", qint64(svgBytes.size()), qint64(pdfBytes.size()));
    for (const char* name : {"window.jpg", "window"}) {
        const auto path = tmp_.filePath(QLatin1String(name));
        QCOMPARE(run(QStringList{QStringLiteral("--screenshot"), path} + common, &out, &err), 2);
        QVERIFY2(err.contains("must end in .png, .svg or .pdf"), err.constData());
        QVERIFY(!QFileInfo::exists(path));
    }
}

void TestCliWindow::screenshotKeepsTheRememberedRun() {
    // A batch picture of another model and text leaves the settings the user's next start reads as they were.
    QTemporaryDir config;
    const auto file = config.filePath(QStringLiteral("attnscope/attnscope.conf"));
    {
        QSettings s(file, QSettings::IniFormat);
        s.setValue(QStringLiteral("model/last"), lm_);
        s.setValue(QStringLiteral("source/text"), QStringLiteral("the text of the last run"));
    }
    QFile before(file);
    QVERIFY(before.open(QIODevice::ReadOnly));
    const auto bytes = before.readAll();
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), config.path());
    QByteArray out, err;
    QCOMPARE(run({QStringLiteral("--screenshot"), tmp_.filePath(QStringLiteral("other.png")),
                  QStringLiteral("--model"), model_, QStringLiteral("--src"), QStringLiteral("abc"),
                  QStringLiteral("--steps"), QStringLiteral("1")},
                 &out, &err, env),
             0);
    QFile after(file);
    QVERIFY(after.open(QIODevice::ReadOnly));
    QCOMPARE(after.readAll(), bytes);
    QCOMPARE(QDir(config.filePath(QStringLiteral("attnscope"))).entryList(QDir::Files),
             QStringList{QStringLiteral("attnscope.conf")});
    QSettings s(file, QSettings::IniFormat);
    qInfo("after a screenshot of another model: model/last = %s, source/text = \"%s\"",
          qPrintable(QFileInfo(s.value(QStringLiteral("model/last")).toString()).fileName()),
          qPrintable(s.value(QStringLiteral("source/text")).toString()));
}

void TestCliWindow::figures() {
    // One figure: the format follows the suffix, and the JSON line says what was drawn.
    const auto pdf = tmp_.filePath(QStringLiteral("head.pdf"));
    QByteArray out, err;
    QCOMPARE(run({QStringLiteral("--screenshot"), pdf, QStringLiteral("--model"), model_,
                  QStringLiteral("--src"), QStringLiteral("abc"), QStringLiteral("--steps"),
                  QStringLiteral("2"), QStringLiteral("--kind"), QStringLiteral("cross"),
                  QStringLiteral("--head"), QStringLiteral("1"), QStringLiteral("--figure"),
                  QStringLiteral("heatmap"), QStringLiteral("--title"), QStringLiteral("A head")},
                 &out, &err),
             0);
    const auto j = json::parse(out.toStdString());
    QCOMPARE(j["figure"], "heatmap");
    QCOMPARE(j["format"], "pdf");
    QCOMPARE(j["kind"], "cross");
    QCOMPARE(j["head"], 1);
    QCOMPARE(j["rows"], 3); // <bos> and two steps
    QCOMPARE(j["cols"], 5); // <bos> a b c <eos>
    QFile f(pdf);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const auto bytes = f.readAll();
    QVERIFY(bytes.startsWith("%PDF") && !bytes.contains("/DCTDecode"));
    // Every head into a folder: 2 layers × (4 heads + mean) and one CSV.
    const auto dir = tmp_.filePath(QStringLiteral("heads"));
    QCOMPARE(run({QStringLiteral("--screenshot"), dir, QStringLiteral("--model"), model_,
                  QStringLiteral("--src"), QStringLiteral("abc"), QStringLiteral("--figure"),
                  QStringLiteral("heads"), QStringLiteral("--format"), QStringLiteral("svg")},
                 &out, &err),
             0);
    QCOMPARE(json::parse(out.toStdString())["files"], 11);
    QCOMPARE(QDir(dir).entryList(QDir::Files).size(), 11);
    // Refused with a message: an unknown figure, a head the kind lacks, --format without heads.
    QCOMPARE(run({QStringLiteral("--screenshot"), pdf, QStringLiteral("--figure"), QStringLiteral("pie")},
                 &out, &err),
             2);
    QVERIFY2(err.contains("--figure must be"), err.constData());
    QCOMPARE(run({QStringLiteral("--screenshot"), pdf, QStringLiteral("--model"), model_,
                  QStringLiteral("--src"), QStringLiteral("abc"), QStringLiteral("--figure"),
                  QStringLiteral("grid"), QStringLiteral("--heads"), QStringLiteral("9")},
                 &out, &err),
             2);
    QVERIFY2(err.contains("head '9'"), err.constData());
    QCOMPARE(run({QStringLiteral("--screenshot"), pdf, QStringLiteral("--format"), QStringLiteral("png")},
                 &out, &err),
             2);
    QVERIFY2(err.contains("--format goes with --figure heads"), err.constData());
}

QTEST_GUILESS_MAIN(TestCliWindow)
#include "test_cli_window.moc"
