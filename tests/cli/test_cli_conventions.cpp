// The command line's conventions, the same for every command: -h and --help print the usage and exit 0,
// --opt=value means --opt value, a flag given a value and an unknown option are refused naming them (exit 2).

#include "tests/support/CliRunner.h"

#include <QtTest>

class TestCliConventions : public QObject, protected CliRunner {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void helpEverywhere_data();
    void helpEverywhere();
    void equalsForm();
    void refusals_data();
    void refusals();

private:
    QString model_;
};

void TestCliConventions::initTestCase() {
    QVERIFY(tmp_.isValid());
    model_ = initModel(QStringLiteral("ed"), edConfigJson);
    QVERIFY(!model_.isEmpty());
}

void TestCliConventions::helpEverywhere_data() {
    QTest::addColumn<QString>("command");
    for (const char* c :
         {"", "dump", "explain", "convert", "eval", "heads", "init", "bench", "bench-train", "train"})
        QTest::newRow(*c ? c : "the window") << QString::fromLatin1(c);
}

void TestCliConventions::helpEverywhere() {
    QFETCH(QString, command);
    const QStringList before = command.isEmpty() ? QStringList() : QStringList{command};
    QByteArray shortOut, longOut, err;
    QCOMPARE(run(before + QStringList{QStringLiteral("-h")}, &shortOut, &err), 0);
    QCOMPARE(run(before + QStringList{QStringLiteral("--help")}, &longOut, &err), 0);
    QCOMPARE(shortOut, longOut);
    // The program's own help leads with what it is, then its usage; a command's with its usage line.
    const QByteArray usage =
        command.isEmpty() ? "\n\nusage: attnscope [" : "usage: attnscope " + command.toUtf8() + ' ';
    QVERIFY2(command.isEmpty() ? shortOut.contains(usage) : shortOut.startsWith(usage),
             shortOut.left(80).constData());
    QVERIFY(err.isEmpty());
}

void TestCliConventions::equalsForm() {
    // Byte for byte the same run, whichever way the options are written.
    QByteArray spaced, joined, mixed;
    QCOMPARE(run({QStringLiteral("dump"), QStringLiteral("--model"), model_, QStringLiteral("--src"),
                  QStringLiteral("a b=c"), QStringLiteral("--greedy"), QStringLiteral("2")},
                 &spaced),
             0);
    QCOMPARE(run({QStringLiteral("dump"), QStringLiteral("--model=") + model_, QStringLiteral("--src=a b=c"),
                  QStringLiteral("--greedy=2")},
                 &joined),
             0);
    QCOMPARE(run({QStringLiteral("dump"), QStringLiteral("--src=a b=c"), QStringLiteral("--model"), model_,
                  QStringLiteral("--greedy=2")},
                 &mixed),
             0);
    QVERIFY(spaced.contains("\"src_text\": \"a b=c\""));
    // One dash reads as two ("-model"), and a value joined by "=" is taken as given even when it looks like
    // an option.
    QByteArray dashed, optionLike;
    QCOMPARE(run({QStringLiteral("dump"), QStringLiteral("-model"), model_, QStringLiteral("-src"),
                  QStringLiteral("a b=c"), QStringLiteral("-greedy=2")},
                 &dashed),
             0);
    QCOMPARE(dashed, spaced);
    QCOMPARE(run({QStringLiteral("dump"), QStringLiteral("--model"), model_, QStringLiteral("--src=--help")},
                 &optionLike),
             0);
    QVERIFY(optionLike.contains("\"src_text\": \"--help\""));
    QCOMPARE(joined, spaced);
    QCOMPARE(mixed, spaced);
    qInfo("dump --model=DIR --src=TEXT --greedy=2: %lld bytes, the same as with spaces",
          qint64(joined.size()));
}

void TestCliConventions::refusals_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("unknown") << QStringList{QStringLiteral("dump"), QStringLiteral("--modle=x")}
                             << "attnscope dump: unknown option '--modle'";
    QTest::newRow("flag with a value") << QStringList{QStringLiteral("heads"), QStringLiteral("--json=yes")}
                                       << "attnscope heads: unexpected value after '--json'";
    QTest::newRow("no value") << QStringList{QStringLiteral("eval"), QStringLiteral("--pairs")}
                              << "attnscope eval: missing value after '--pairs'";
    QTest::newRow("stray word") << QStringList{QStringLiteral("init"), QStringLiteral("extra")}
                                << "attnscope init: unknown argument 'extra'";
    QTest::newRow("empty screenshot")
        << QStringList{QStringLiteral("--screenshot=")} << "attnscope: --screenshot is empty";
    QTest::newRow("window") << QStringList{QStringLiteral("--steps=x")}
                            << "attnscope: --steps expects a whole number";
}

void TestCliConventions::refusals() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    QByteArray out, err;
    QCOMPARE(run(args, &out, &err), 2);
    QVERIFY2(err.contains(message.toUtf8()), err.constData());
    QVERIFY(out.isEmpty());
}

QTEST_GUILESS_MAIN(TestCliConventions)
#include "test_cli_conventions.moc"
