// core::classificationReport against counts worked out by hand: accuracy, and each class's precision,
// recall and F1 with the confusion counts behind them, including a class never predicted and one no text
// has; entries that are not classes and lists of different lengths are refused by name.

#include "core/analysis/ClassificationMetrics.h"
#include "core/base/Errors.h"

#include <QtTest>

#include <string>
#include <vector>

using Strings = std::vector<std::string>;
Q_DECLARE_METATYPE(Strings)

class TestClassMetrics : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void report_data();
    void report();
    void refusals();
};

void TestClassMetrics::report_data() {
    QTest::addColumn<Strings>("labels");
    QTest::addColumn<Strings>("answers");
    QTest::addColumn<double>("accuracy");
    QTest::addColumn<double>("spamPrecision");
    QTest::addColumn<double>("spamRecall");
    QTest::addColumn<double>("hamF1");
    // 6 ham, 4 spam; 3 spam found, 1 missed, 2 ham called spam: spam precision 3/5, recall 3/4; ham
    // precision 4/5, recall 4/6, F1 2·(4/5)(4/6)/((4/5)+(4/6)) = 8/11.
    QTest::newRow("mixed") << Strings{"ham", "ham",  "ham",  "ham",  "ham",
                                      "ham", "spam", "spam", "spam", "spam"}
                           << Strings{"ham",  "ham",  "ham",  "ham",  "spam",
                                      "spam", "spam", "spam", "spam", "ham"}
                           << 0.7 << 0.6 << 0.75 << 8.0 / 11.0;
    // Never spam: its precision is 0 by definition (nothing predicted), its recall 0.
    QTest::newRow("never spam") << Strings{"ham", "spam", "ham"} << Strings{"ham", "ham", "ham"} << 2.0 / 3.0
                                << 0.0 << 0.0 << 0.8;
    // No spam at all and none predicted: recall of a class no text has is 0.
    QTest::newRow("all ham") << Strings{"ham", "ham"} << Strings{"ham", "ham"} << 1.0 << 0.0 << 0.0 << 1.0;
    QTest::newRow("nothing") << Strings{} << Strings{} << 0.0 << 0.0 << 0.0 << 0.0;
}

void TestClassMetrics::report() {
    QFETCH(Strings, labels);
    QFETCH(Strings, answers);
    QFETCH(double, accuracy);
    QFETCH(double, spamPrecision);
    QFETCH(double, spamRecall);
    QFETCH(double, hamF1);
    const auto r = core::classificationReport({"ham", "spam"}, labels, answers);
    QCOMPARE(r.total, static_cast<int64_t>(labels.size()));
    QCOMPARE(r.accuracy, accuracy);
    QCOMPARE(r.classes.size(), std::size_t{2});
    QCOMPARE(r.classes[1].name, std::string("spam"));
    QCOMPARE(r.classes[1].precision, spamPrecision);
    QCOMPARE(r.classes[1].recall, spamRecall);
    QVERIFY(qAbs(r.classes[0].f1 - hamF1) < 1e-12);
    // The confusion counts add up to the texts, and its diagonal to the correct ones.
    int64_t all = 0;
    for (const auto& row : r.confusion)
        for (auto n : row)
            all += n;
    QCOMPARE(all, r.total);
    QCOMPARE(r.confusion[0][0] + r.confusion[1][1], r.correct);
    QCOMPARE(r.classes[0].support + r.classes[1].support, r.total);
    QCOMPARE(r.classes[0].predicted + r.classes[1].predicted, r.total);
}

void TestClassMetrics::refusals() {
    try {
        core::classificationReport({"ham", "spam"}, {"ham", "eggs"}, {"ham", "ham"});
        QFAIL("accepted a label that is no class");
    } catch (const core::InputError& e) {
        QVERIFY2(QString(e.what()).contains("label 2 is \"eggs\""), e.what());
    }
    try {
        core::classificationReport({"ham", "spam"}, {"ham"}, {"ham", "ham"});
        QFAIL("accepted lists of different lengths");
    } catch (const core::InputError& e) {
        QVERIFY2(QString(e.what()).contains("1 labels but 2 answers"), e.what());
    }
}

QTEST_APPLESS_MAIN(TestClassMetrics)
#include "test_classmetrics.moc"
