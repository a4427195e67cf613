// The export formats (CSV and the dump JSON): exact values, unique column names, and text that does not
// change with the locale.

#include "core/base/Errors.h"
#include "core/run/SnapshotCsv.h"
#include "core/run/SnapshotJson.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <charconv>
#include <clocale>
#include <locale>
#include <sstream>

namespace {

// A locale as a German user has it: decimal comma, dot between thousands.
struct CommaDecimal : std::numpunct<char> {
    char do_decimal_point() const override { return ','; }
    char do_thousands_sep() const override { return '.'; }
    std::string do_grouping() const override { return "\3"; }
};

core::AttentionSnapshot snapshot() {
    core::AttentionSnapshot s;
    s.modelName = "m";
    for (const char* t : {"<bos>", "l", "l", "a,b"})
        s.srcTokens.push_back({1, t, false, false});
    s.tgtTokens = {{1, "<bos>", false, true}, {5, "x", false, false}};
    s.encoder.resize(1, 2, 4, 4);
    s.cross.resize(1, 2, 2, 4);
    for (std::size_t i = 0; i < s.encoder.data.size(); ++i)
        s.encoder.data.mutableData()[i] = 1.0f / static_cast<float>(i + 3); // not exact in few digits
    for (std::size_t i = 0; i < s.cross.data.size(); ++i)
        s.cross.data.mutableData()[i] = 0.25f + 1e-7f * static_cast<float>(i);
    s.nextTokenLogProbs = {-0.5f, -1234.5f, -1e-6f};
    return s;
}

std::vector<std::string> splitCsvLine(const std::string& line) {
    std::vector<std::string> out;
    std::string cur;
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
            cur += '"';
            ++i;
        } else if (c == '"') {
            quoted = !quoted;
        } else if (c == ',' && !quoted) {
            out.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    out.push_back(cur);
    return out;
}

std::vector<std::vector<std::string>> readCsv(const std::string& text) {
    std::vector<std::vector<std::string>> rows;
    std::size_t start = 0;
    while (start < text.size()) {
        const auto end = text.find("\r\n", start);
        rows.push_back(splitCsvLine(text.substr(start, end - start)));
        start = end == std::string::npos ? text.size() : end + 2;
    }
    return rows;
}

float parseFloat(const std::string& s) {
    float v = 0.0f;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    return r.ec == std::errc() && r.ptr == s.data() + s.size() ? v : std::numeric_limits<float>::quiet_NaN();
}

} // namespace

class TestSnapshotFormat : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void headCsvIsExact_data();
    void headCsvIsExact();
    void longCsvShape();
    void jsonIsExact();
    void localeDoesNotLeak();
    void badHeadIsRefused();
};

void TestSnapshotFormat::headCsvIsExact_data() {
    QTest::addColumn<int>("kind");
    QTest::addColumn<int>("head");
    QTest::newRow("encoder head 1") << int(core::AttentionKind::Encoder) << 1;
    QTest::newRow("encoder mean") << int(core::AttentionKind::Encoder) << core::kMeanHead;
    QTest::newRow("cross head 0") << int(core::AttentionKind::Cross) << 0;
}

void TestSnapshotFormat::headCsvIsExact() {
    QFETCH(int, kind);
    QFETCH(int, head);
    const auto s = snapshot();
    const auto k = static_cast<core::AttentionKind>(kind);
    std::ostringstream out;
    core::writeHeadCsv(out, s, k, 0, head);
    const auto rows = readCsv(out.str());
    const auto& b = s.block(k);
    QCOMPARE(int(rows.size()), 1 + b.queries);
    // Repeated tokens ("l" twice) still give unique column names; a comma inside a token is quoted.
    QCOMPARE(rows[0], (std::vector<std::string>{"query", "0:<bos>", "1:l", "2:l", "3:a,b"}));
    for (int q = 0; q < b.queries; ++q) {
        QCOMPARE(int(rows[std::size_t(q + 1)].size()), 1 + b.keys);
        for (int key = 0; key < b.keys; ++key) {
            float want = 0.0f;
            if (head != core::kMeanHead)
                want = b.at(0, head, q, key);
            else
                want = (b.at(0, 0, q, key) + b.at(0, 1, q, key)) / 2.0f;
            QCOMPARE(parseFloat(rows[std::size_t(q + 1)][std::size_t(key + 1)]), want); // bit-exact
        }
    }
}

void TestSnapshotFormat::longCsvShape() {
    const auto s = snapshot();
    std::ostringstream out;
    core::writeKindCsv(out, s, core::AttentionKind::Cross);
    const auto rows = readCsv(out.str());
    QCOMPARE(int(rows.size()), 1 + 1 * 2 * 2); // header + layers × heads × queries
    QCOMPARE(rows[0][3], std::string("query_token"));
    // Last row: layer 0, head 1, query 1 ("x"), then its four weights read back bit-exactly.
    QCOMPARE(int(rows[4].size()), 4 + 4);
    QCOMPARE((std::vector<std::string>(rows[4].begin(), rows[4].begin() + 4)),
             (std::vector<std::string>{"0", "1", "1", "x"}));
    for (int k = 0; k < 4; ++k)
        QCOMPARE(parseFloat(rows[4][std::size_t(4 + k)]), s.cross.at(0, 1, 1, k));
}

void TestSnapshotFormat::jsonIsExact() {
    const auto s = snapshot();
    std::ostringstream out;
    core::writeSnapshotJson(out, s, "src", "tgt", "\"selection\": {\"layer\": 0}");
    const auto j = nlohmann::json::parse(out.str());
    QCOMPARE(j["selection"]["layer"].get<int>(), 0);
    const auto& enc = j["attention"]["encoder"];
    for (int h = 0; h < 2; ++h)
        for (int q = 0; q < 4; ++q)
            for (int k = 0; k < 4; ++k)
                QCOMPARE(enc[std::size_t(0)][std::size_t(h)][std::size_t(q)][std::size_t(k)].get<float>(),
                         s.encoder.at(0, h, q, k));
    QCOMPARE(j["next_token_logprobs"][1].get<float>(), -1234.5f);
}

void TestSnapshotFormat::localeDoesNotLeak() {
    const auto s = snapshot();
    std::ostringstream plainCsv, plainJson;
    core::writeHeadCsv(plainCsv, s, core::AttentionKind::Encoder, 0, 0);
    core::writeSnapshotJson(plainJson, s, "", "");
    // The C++ locale of the stream: a comma decimal point and grouped thousands.
    const std::locale comma(std::locale::classic(), new CommaDecimal);
    std::ostringstream csv, json;
    csv.imbue(comma);
    json.imbue(comma);
    core::writeHeadCsv(csv, s, core::AttentionKind::Encoder, 0, 0);
    core::writeSnapshotJson(json, s, "", "");
    QCOMPARE(csv.str(), plainCsv.str());
    QCOMPARE(json.str(), plainJson.str());
    QVERIFY(csv.getloc() == comma); // handed back as it came
    // The C locale (what printf follows), when the machine has a comma-decimal one to switch to.
    const std::string before = std::setlocale(LC_NUMERIC, nullptr);
    const char* found = nullptr;
    for (const char* name : {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8"})
        if (std::setlocale(LC_NUMERIC, name)) {
            found = name;
            break;
        }
    if (found) {
        std::ostringstream again;
        core::writeHeadCsv(again, s, core::AttentionKind::Encoder, 0, 0);
        std::setlocale(LC_NUMERIC, before.c_str());
        QCOMPARE(again.str(), plainCsv.str());
        qInfo("LC_NUMERIC=%s gives the same CSV", found);
    } else {
        qInfo("no comma-decimal C locale installed; the stream locale was checked above");
    }
}

void TestSnapshotFormat::badHeadIsRefused() {
    const auto s = snapshot();
    std::ostringstream out;
    QVERIFY_THROWS_EXCEPTION(core::Error, core::writeHeadCsv(out, s, core::AttentionKind::Encoder, 1, 0));
    QVERIFY_THROWS_EXCEPTION(core::Error, core::writeHeadCsv(out, s, core::AttentionKind::Decoder, 0, 0));
    try {
        core::writeHeadCsv(out, s, core::AttentionKind::Encoder, 0, 5);
        QFAIL("head 5 of 2 was accepted");
    } catch (const core::Error& e) {
        QVERIFY2(std::string(e.what()).find("head 5") != std::string::npos, e.what());
    }
}

QTEST_GUILESS_MAIN(TestSnapshotFormat)
#include "test_snapshotformat.moc"
