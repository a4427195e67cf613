// How tokens are written on screen: whitespace made visible, unknown pieces marked, and the bytes of a
// character cut between byte-level BPE tokens shown as bytes.

#include "ui/base/TokenText.h"

#include <QTest>

class TestTokenText : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void display_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<bool>("unknown");
        QTest::addColumn<QString>("shown");
        QTest::newRow("word") << QByteArray(" world") << false << QStringLiteral("\u2423world");
        QTest::newRow("tab and newline") << QByteArray("\t\n") << false << QStringLiteral("\u21E5\u21B5");
        QTest::newRow("accents") << QByteArray("caf\xC3\xA9") << false << QStringLiteral("caf\u00E9");
        QTest::newRow("emoji whole") << QByteArray("\xF0\x9F\x98\x80") << false
                                     << QStringLiteral("\U0001F600");
        QTest::newRow("emoji head") << QByteArray("\xF0\x9F") << false << QStringLiteral("<0xF0><0x9F>");
        QTest::newRow("emoji tail") << QByteArray(" \x98\x80") << false
                                    << QStringLiteral("\u2423<0x98><0x80>");
        QTest::newRow("overlong") << QByteArray("\xC0\xAF") << false << QStringLiteral("<0xC0><0xAF>");
        QTest::newRow("surrogate") << QByteArray("\xED\xA0\x80") << false
                                   << QStringLiteral("<0xED><0xA0><0x80>");
        QTest::newRow("real U+FFFD") << QByteArray("\xEF\xBF\xBD") << false << QStringLiteral("\uFFFD");
        QTest::newRow("unknown") << QByteArray("\xC3\xA9") << true << QStringLiteral("\u27E8?\u00E9\u27E9");
    }
    void display() {
        QFETCH(QByteArray, bytes);
        QFETCH(bool, unknown);
        QFETCH(QString, shown);
        core::Token t;
        t.text = bytes.toStdString();
        t.unknown = unknown;
        QCOMPARE(ui::tokenDisplayText(t), shown);
    }
    void elision() {
        QCOMPARE(ui::elided(QStringLiteral("short"), 14), QStringLiteral("short"));
        QCOMPARE(ui::elided(QStringLiteral("exactly14chars"), 14), QStringLiteral("exactly14chars"));
        QCOMPARE(ui::elided(QString(60, QLatin1Char('-')), 14),
                 QString(13, QLatin1Char('-')) + QChar(0x2026));
        // A cut that would fall inside an emoji (two UTF-16 units) keeps it out whole.
        const QString emoji = QStringLiteral("abcd\U0001F600efgh"); // a b c d 😀 e f g h: 😀 at 4–5
        QCOMPARE(ui::elided(emoji, 6), QStringLiteral("abcd") + QChar(0x2026));
        QCOMPARE(ui::elided(emoji, 7), QStringLiteral("abcd\U0001F600") + QChar(0x2026));
    }
};

QTEST_MAIN(TestTokenText)
#include "test_tokentext.moc"
