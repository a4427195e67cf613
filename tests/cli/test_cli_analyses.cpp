// `attnscope dump --ablate`, `rollout` and `ablate` as a script reads them: heads switched off by the
// command line change the run and are named in its JSON; rollout's and flow's rows cover the run's tokens;
// the ablation's effect and the sweep; and heads, kinds and lengths the model does not have exit 2 naming
// what was wrong.

#include "tests/support/CliRunner.h"
#include "tests/support/SkipReport.h"

#include <QFileInfo>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <set>

using nlohmann::json;

namespace {

const QString kReverse = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/reverse");
const QString kGru = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/en-es-gru");
const QString kLm = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/tiny-lm");

double rowSumError(const json& rows) {
    double worst = 0.0;
    for (const auto& r : rows) {
        double s = 0.0;
        for (const auto& x : r)
            s += x.get<double>();
        worst = std::max(worst, std::abs(s - 1.0));
    }
    return worst;
}

} // namespace

class TestCliAnalyses : public QObject, protected CliRunner {
    Q_OBJECT
private Q_SLOTS:
    void dumpAblated();
    void rollout();
    void lens();
    void attribute();
    void ablate();
    void sweep();
    void lesson();
    void lessonThatTrains();
    void badArguments_data();
    void badArguments();

private:
    json runJson(const QStringList& args) {
        QByteArray out, err;
        const int code = run(args, &out, &err);
        if (code != 0)
            qWarning("%s", err.constData());
        return code == 0 ? json::parse(out.toStdString()) : json();
    }
};

void TestCliAnalyses::dumpAblated() {
    const QStringList base{QStringLiteral("dump"),  QStringLiteral("--model"), kReverse,
                           QStringLiteral("--src"), QStringLiteral("abcdef"),  QStringLiteral("--greedy"),
                           QStringLiteral("2")};
    const auto full = runJson(base);
    const auto off = runJson(base + QStringList{QStringLiteral("--ablate"), QStringLiteral("0:1, cross:1:2 "),
                                                QStringLiteral("--value-weighted")});
    QVERIFY(!full.is_null() && !off.is_null());
    QCOMPARE(full["ablated"].get<std::string>(), std::string("none"));
    QCOMPARE(off["ablated"].get<std::string>(), std::string("decoder 0:1, cross 1:2"));
    // The switched-off head still attends: its weights are there, rows summing to 1.
    QVERIFY(rowSumError(off["attention"]["cross"][1][2]) < 1e-5);
    const auto a = full["next_token_logprobs"].get<std::vector<double>>();
    const auto b = off["next_token_logprobs"].get<std::vector<double>>();
    double moved = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i)
        moved = std::max(moved, std::abs(a[i] - b[i]));
    QVERIFY(moved > 1e-4);
    // The encoder runs before any decoder head, so switching decoder heads off leaves it exactly as it was.
    QCOMPARE(off["attention"]["encoder"], full["attention"]["encoder"]);
    QCOMPARE(off["value_norms"]["cross"].size(), std::size_t(2));
    QCOMPARE(off["value_norms"]["cross"][0][0].size(), off["src_tokens"].size());
    QVERIFY(rowSumError(off["value_weighted"]["decoder"][1][3]) < 1e-5);
    QVERIFY(!full.contains("value_weighted"));
}

void TestCliAnalyses::rollout() {
    const auto r = runJson({QStringLiteral("rollout"), QStringLiteral("--model"), kReverse,
                            QStringLiteral("--src"), QStringLiteral("abcdefg"), QStringLiteral("--greedy"),
                            QStringLiteral("3"), QStringLiteral("--flow")});
    QVERIFY(!r.is_null());
    QCOMPARE(r["kind"].get<std::string>(), std::string("cross")); // an encoder-decoder's default
    QCOMPARE(r["rows"].size(), std::size_t(4));                   // <bos> and three outputs
    QCOMPARE(r["cols"].size(), std::size_t(9));                   // <bos> a … g <eos>
    QCOMPARE(r["rollout"]["weights"].size(), r["rows"].size());
    QVERIFY(rowSumError(r["rollout"]["weights"]) < 1e-5);
    QCOMPARE(r["rollout"]["current"], r["rollout"]["weights"].back());
    QCOMPARE(r["flow"]["current"], r["flow"]["weights"].back());
    for (const auto& row : r["flow"]["weights"])
        for (const auto& x : row)
            QVERIFY(x.get<double>() >= 0.0 && x.get<double>() <= 1.0 + 1e-6);
    const auto lm = runJson({QStringLiteral("rollout"), QStringLiteral("--model"), kLm,
                             QStringLiteral("--src"), QStringLiteral("the weather in the winter")});
    QCOMPARE(lm["kind"].get<std::string>(), std::string("decoder"));
    QCOMPARE(lm["rows"], lm["cols"]);
    QVERIFY(!lm.contains("flow"));
}

void TestCliAnalyses::lens() {
    // The schema a script reads: points from "embed" to the model's output, [point][position] arrays, ten
    // candidates a reading; at the last point the chosen token is the model's own next token (rank 0), and
    // its log-probability is the one dump prints for the last position.
    const QStringList args{QStringLiteral("--model"),  kReverse,
                           QStringLiteral("--src"),    QStringLiteral("abcdef"),
                           QStringLiteral("--greedy"), QStringLiteral("3")};
    const auto r = runJson(QStringList{QStringLiteral("lens")} + args);
    QVERIFY(!r.is_null());
    const auto points = r["points"].get<std::vector<std::string>>();
    qInfo("reverse: %zu points (%s … %s) x %d positions, %.1f ms", points.size(), points.front().c_str(),
          points.back().c_str(), r["positions"].get<int>(), r["ms"].get<double>());
    QCOMPARE(points.front(), std::string("embed"));
    QCOMPARE(points.back(), std::string("1.mlp"));
    QCOMPARE(points.size(), std::size_t(1 + 2 * 3));
    const auto positions = r["positions"].get<std::size_t>();
    QCOMPARE(positions, std::size_t(4)); // <bos> and three greedy tokens
    QCOMPARE(r["tokens"].size(), positions);
    QCOMPARE(r["chosen"].size(), positions);
    for (const char* key : {"logprob", "rank", "entropy", "top"}) {
        QCOMPARE(r[key].size(), points.size());
        for (const auto& row : r[key])
            QCOMPARE(row.size(), positions);
    }
    const auto& first = r["top"][0][0];
    QCOMPARE(first.size(), std::size_t(10));
    QVERIFY(first[0].contains("id") && first[0].contains("token") && first[0].contains("prob"));
    QVERIFY(first[0]["prob"].get<double>() >= first[9]["prob"].get<double>());
    for (const auto& rank : r["rank"].back())
        QCOMPARE(rank.get<int>(), 0);
    QCOMPARE(r["reads"].get<std::string>(), std::string("decoder"));
    const auto dump = runJson(QStringList{QStringLiteral("dump")} + args);
    const auto own = dump["next_token_logprobs"].get<std::vector<double>>();
    const auto last = r["chosen"].back().get<std::size_t>();
    QVERIFY(std::abs(r["logprob"].back().back().get<double>() - own[last]) < 1e-5);
    // --token reads one token everywhere.
    const auto one = runJson(QStringList{QStringLiteral("lens"), QStringLiteral("--token"),
                                         QStringLiteral("5"), QStringLiteral("--top"), QStringLiteral("3")} +
                             args);
    QCOMPARE(one["chosen"], json(std::vector<int>(positions, 5)));
    QCOMPARE(one["top"][2][1].size(), std::size_t(3));
}

void TestCliAnalyses::attribute() {
    // The schema a script reads: components whose contributions add up to the model's own logit (and to a
    // difference of two), every head of every layer and kind once, the token the model's own most likely
    // one by default (the one `lens` chooses at the last point).
    const QStringList args{QStringLiteral("--model"),  kReverse,
                           QStringLiteral("--src"),    QStringLiteral("abcdef"),
                           QStringLiteral("--greedy"), QStringLiteral("3")};
    const auto r = runJson(QStringList{QStringLiteral("attribute")} + args);
    QVERIFY(!r.is_null());
    QCOMPARE(r["position"].get<int>(), 3);
    QVERIFY(r["versus"].is_null());
    double total = 0.0;
    int heads = 0, mlps = 0;
    std::set<std::string> names;
    for (const auto& c : r["components"]) {
        total += c["contribution"].get<double>();
        names.insert(c["name"].get<std::string>());
        const auto kind = c["kind"].get<std::string>();
        heads += kind == "head";
        mlps += kind == "mlp";
        if (kind == "head")
            QVERIFY(c["layer"].is_number() && c["head"].is_number());
    }
    const double logit = r["logit"].get<double>(), sum = r["sum"].get<double>();
    qInfo(
        "reverse, position 3, token %d: logit %.6f, %zu components summing to %.6f (split gap %.2g), %.1f ms",
        r["token"].get<int>(), logit, r["components"].size(), sum, r["split_gap"].get<double>(),
        r["ms"].get<double>());
    QCOMPARE(names.size(), r["components"].size());
    QCOMPARE(heads, 2 * 2 * 4); // two decoder layers, self and cross, four heads each
    QCOMPARE(mlps, 2);
    QVERIFY(std::abs(total - sum) <= 1e-9 * std::max(1.0, std::abs(sum)));
    QVERIFY(std::abs(sum - logit) <= 1e-4 * std::max(1.0, std::abs(logit)));
    const auto lens = runJson(QStringList{QStringLiteral("lens")} + args);
    QCOMPARE(r["token"].get<int>(), lens["chosen"].back().get<int>());
    // A difference of two tokens' logits, at an earlier position.
    const auto d = runJson(QStringList{QStringLiteral("attribute"), QStringLiteral("--position"),
                                       QStringLiteral("1"), QStringLiteral("--token"), QStringLiteral("5"),
                                       QStringLiteral("--versus"), QStringLiteral("6")} +
                           args);
    QCOMPARE(d["versus"].get<int>(), 6);
    QVERIFY(std::abs(d["sum"].get<double>() - d["logit"].get<double>()) <=
            1e-4 * std::max(1.0, std::abs(d["logit"].get<double>())));
}

void TestCliAnalyses::ablate() {
    const auto e =
        runJson({QStringLiteral("ablate"), QStringLiteral("--model"), kReverse, QStringLiteral("--src"),
                 QStringLiteral("abcdefgh"), QStringLiteral("--greedy"), QStringLiteral("1"),
                 QStringLiteral("--ablate"), QStringLiteral("1:0,1:1,1:2,1:3"),
                 QStringLiteral("--ablate-kind"), QStringLiteral("cross")});
    QVERIFY(!e.is_null());
    QCOMPARE(e["ablated"].get<std::string>(), std::string("cross 1:0, cross 1:1, cross 1:2, cross 1:3"));
    QVERIFY(e["kl"].get<double>() > 1e-3);
    QCOMPARE(e["changes"].size(), std::size_t(5));
    QCOMPARE(e["greedy"]["full_text"].get<std::string>(), std::string("hgfedcba"));
    QVERIFY(e["greedy"]["ablated_text"] != e["greedy"]["full_text"]);
    QVERIFY(e["greedy"]["first_difference"].get<int>() >= 0);
}

void TestCliAnalyses::sweep() {
    const auto s = runJson({QStringLiteral("ablate"), QStringLiteral("--model"), kReverse,
                            QStringLiteral("--src"), QStringLiteral("abc"), QStringLiteral("--sweep")});
    QVERIFY(!s.is_null());
    QCOMPARE(s["heads"].size(), std::size_t(24));
    QCOMPARE(s["baseline"].get<std::string>(), std::string("cba"));
    for (std::size_t i = 1; i < s["heads"].size(); ++i)
        QVERIFY(s["heads"][i - 1]["mean_kl"].get<double>() >= s["heads"][i]["mean_kl"].get<double>());
}

void TestCliAnalyses::lesson() {
    const QString file = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/lessons/02-translation.json");
    // Read: every step whole.
    const auto read = runJson({QStringLiteral("lesson"), QStringLiteral("--file"), file});
    QVERIFY(!read.is_null());
    QCOMPARE(read["format"].get<std::string>(), std::string("attnscope-lesson"));
    const auto& steps = read["steps"];
    QVERIFY(steps.size() >= 8);
    QCOMPARE(steps[3]["model"].get<std::string>(), std::string("en-es")); // kept from the first step
    // Played in the window offscreen: one line a step, each reached with its state and its numbers.
    QByteArray out, err;
    QCOMPARE(
        run({QStringLiteral("lesson"), QStringLiteral("--file"), file, QStringLiteral("--play")}, &out, &err),
        0);
    const auto lines = out.trimmed().split('\n');
    QCOMPARE(std::size_t(lines.size()), steps.size());
    for (int i = 0; i < lines.size(); ++i) {
        const auto line = json::parse(lines[i].toStdString());
        const auto& want = steps[std::size_t(i)];
        QVERIFY2(line["reached"].get<bool>(), lines[i].constData());
        QCOMPARE(line["step"], want["step"]);
        QCOMPARE(line["layer"], want["layer"]);
        QCOMPARE(line["head"], want["head"]);
        QCOMPARE(line["kind"], want["kind"]);
        QCOMPARE(line["tab"], want["tab"]);
        QVERIFY2(line["missing"].empty(), lines[i].constData());
        QVERIFY(line["caption"].get<std::string>().find('{') == std::string::npos);
    }
    qInfo("lesson --play, step 6: %s",
          json::parse(lines[5].toStdString())["caption"].get<std::string>().c_str());
    // Out of order, as Page Up and clicks reach the steps: each step's line is the line it has forwards
    // (step 2 reached back from step 5, step 1 from step 9).
    QCOMPARE(run({QStringLiteral("lesson"), QStringLiteral("--file"), file, QStringLiteral("--play"),
                  QStringLiteral("--order"), QStringLiteral("5,2,9,1,1")},
                 &out, &err),
             0);
    const auto jumbled = out.trimmed().split('\n');
    QCOMPARE(jumbled.size(), 5);
    const int order[] = {5, 2, 9, 1, 1};
    for (int k = 0; k < jumbled.size(); ++k) {
        const auto line = json::parse(jumbled[k].toStdString());
        QCOMPARE(line["index"].get<int>(), order[k]);
        QVERIFY2(line == json::parse(lines[order[k] - 1].toStdString()),
                 qPrintable(QStringLiteral("%1\nforwards: %2")
                                .arg(QString::fromUtf8(jumbled[k]), QString::fromUtf8(lines[order[k] - 1]))));
    }
    qInfo("lesson --play --order 5,2,9,1,1, step 2: %s", jumbled[1].constData());
}

void TestCliAnalyses::lessonThatTrains() {
    // A lesson that trains: the step starting the run and the step showing its frame of step 20 name the run
    // in their JSON.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString file = dir.filePath(QStringLiteral("train.json"));
    QFile out(file);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(R"({"format": "attnscope-lesson", "version": 1, "title": "T", "steps": [
        {"caption": "a", "model": "reverse", "text": "abc", "tab": "train",
         "train": {"preset": "copy", "steps": 40, "size": "tiny"}},
        {"caption": "step {frame_step}, loss {frame_loss}", "frame": 20}]})");
    out.close();
    // Kept where --runs says; without it, in a temporary folder removed at the end, never in the user's data.
    const QString runs = dir.filePath(QStringLiteral("runs"));
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("HOME"), dir.path());
    env.insert(QStringLiteral("XDG_DATA_HOME"), dir.filePath(QStringLiteral("data")));
    QByteArray text, err;
    QCOMPARE(run({QStringLiteral("lesson"), QStringLiteral("--file"), file, QStringLiteral("--play"),
                  QStringLiteral("--runs"), runs},
                 &text, &err, env),
             0);
    const auto lines = text.trimmed().split('\n');
    QCOMPARE(lines.size(), 2);
    const auto first = json::parse(lines[0].toStdString()), second = json::parse(lines[1].toStdString());
    QCOMPARE(first["tab"].get<std::string>(), std::string("train"));
    QCOMPARE(first["training"]["preset"].get<std::string>(), std::string("copy"));
    const auto folder = QString::fromStdString(second["training"]["folder"].get<std::string>());
    QVERIFY2(folder.startsWith(runs) && QFileInfo::exists(folder + QStringLiteral("/log.csv")),
             qPrintable(folder));
    QCOMPARE(second["training"]["frame_step"].get<int>(), 20);
    QCOMPARE(second["training"]["formed"].get<int>(), -1); // copy forms no induction head
    QVERIFY2(second["caption"].get<std::string>().rfind("step 20, loss ", 0) == 0, lines[1].constData());
    QVERIFY(second["missing"].empty());
    QCOMPARE(run({QStringLiteral("lesson"), QStringLiteral("--file"), file, QStringLiteral("--play")}, &text,
                 &err, env),
             0);
    const auto scratch = QString::fromStdString(
        json::parse(text.trimmed().split('\n').back().toStdString())["training"]["folder"]
            .get<std::string>());
    QVERIFY2(!scratch.startsWith(dir.path()) && !QFileInfo::exists(scratch), qPrintable(scratch));
    QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("data/attnscope/runs"))));
    qInfo("lesson --play with training: %s", lines[1].constData());
}

void TestCliAnalyses::badArguments_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("fragment");
    const QStringList dump{QStringLiteral("dump"), QStringLiteral("--model"), kReverse,
                           QStringLiteral("--src"), QStringLiteral("abc")};
    const QStringList roll{QStringLiteral("rollout"), QStringLiteral("--model"), kReverse,
                           QStringLiteral("--src"), QStringLiteral("abc")};
    QTest::newRow("head out of range")
        << dump + QStringList{QStringLiteral("--ablate"), QStringLiteral("1:9")}
        << "decoder 1:9: head 9 is out of range: each layer has heads 0–3";
    QTest::newRow("layer out of range")
        << dump + QStringList{QStringLiteral("--ablate"), QStringLiteral("encoder:5:0")}
        << "encoder 5:0: layer 5 is out of range: the encoder attention has layers 0–1";
    QTest::newRow("not a head") << dump + QStringList{QStringLiteral("--ablate"), QStringLiteral("one")}
                                << "\"one\" is not a head";
    QTest::newRow("bad kind") << dump + QStringList{QStringLiteral("--ablate"), QStringLiteral("0:0"),
                                                    QStringLiteral("--ablate-kind"),
                                                    QStringLiteral("pooling")}
                              << "--ablate-kind \"pooling\" is not one of encoder, decoder, cross";
    QTest::newRow("kind alone") << dump +
                                       QStringList{QStringLiteral("--ablate-kind"), QStringLiteral("cross")}
                                << "--ablate is missing";
    QTest::newRow("no cross in a language model")
        << QStringList{QStringLiteral("dump"),     QStringLiteral("--model"), kLm,
                       QStringLiteral("--src"),    QStringLiteral("the"),     QStringLiteral("--ablate"),
                       QStringLiteral("cross:0:0")}
        << "this model has no cross attention";
    QTest::newRow("recurrent")
        << QStringList{QStringLiteral("dump"),     QStringLiteral("--model"),   kGru,
                       QStringLiteral("--src"),    QStringLiteral("the house"), QStringLiteral("--ablate"),
                       QStringLiteral("cross:0:0")}
        << "head ablation needs a Transformer";
    QTest::newRow("rollout kind") << roll + QStringList{QStringLiteral("--kind"), QStringLiteral("pooling")}
                                  << "--kind \"pooling\" is not one of encoder, decoder, cross";
    QTest::newRow("rollout of a GRU")
        << QStringList{QStringLiteral("rollout"), QStringLiteral("--model"), kGru, QStringLiteral("--src"),
                       QStringLiteral("the house")}
        << "one map";
    QTest::newRow("flow too long") << QStringList{QStringLiteral("rollout"),
                                                  QStringLiteral("--model"),
                                                  kLm,
                                                  QStringLiteral("--src"),
                                                  QStringLiteral("the cat sat on the mat. ").repeated(20),
                                                  QStringLiteral("--flow")}
                                   << "at most 64 tokens";
    QTest::newRow("lens of a classifier")
        << QStringList{QStringLiteral("lens"), QStringLiteral("--model"),
                       QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/spam"), QStringLiteral("--src"),
                       QStringLiteral("win money")}
        << "no logit lens: 'spam' is not a Transformer";
    QTest::newRow("lens token outside")
        << QStringList{QStringLiteral("lens"),    QStringLiteral("--model"), kLm,
                       QStringLiteral("--src"),   QStringLiteral("the"),     QStringLiteral("--token"),
                       QStringLiteral("99999999")}
        << "token 99999999 is outside the vocabulary";
    QTest::newRow("lens top")
        << QStringList{QStringLiteral("lens"),  QStringLiteral("--model"), kLm,
                       QStringLiteral("--src"), QStringLiteral("the"),     QStringLiteral("--top"),
                       QStringLiteral("0")}
        << "--top must be between 1 and 1000, not 0";
    QTest::newRow("attribute position")
        << QStringList{QStringLiteral("attribute"), QStringLiteral("--model"), kLm,
                       QStringLiteral("--src"),     QStringLiteral("the cat"), QStringLiteral("--position"),
                       QStringLiteral("9")}
        << "--position must be between 0 and";
    QTest::newRow("attribute versus alone")
        << QStringList{QStringLiteral("attribute"), QStringLiteral("--model"), kLm,
                       QStringLiteral("--src"),     QStringLiteral("the cat"), QStringLiteral("--versus"),
                       QStringLiteral("3")}
        << "--versus needs --token";
    QTest::newRow("attribute of a classifier")
        << QStringList{QStringLiteral("attribute"), QStringLiteral("--model"),
                       QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/spam"), QStringLiteral("--src"),
                       QStringLiteral("win money")}
        << "no attribution: 'spam' is not a Transformer";
    QTest::newRow("ablate needs heads")
        << QStringList{QStringLiteral("ablate"), QStringLiteral("--model"), kReverse, QStringLiteral("--src"),
                       QStringLiteral("abc")}
        << "give --ablate LIST";
    QTest::newRow("lesson missing") << QStringList{QStringLiteral("lesson"), QStringLiteral("--file"),
                                                   QStringLiteral("no-such-lesson.json")}
                                    << "cannot read the lesson no-such-lesson.json";
    QTest::newRow("lesson malformed")
        << QStringList{QStringLiteral("lesson"), QStringLiteral("--file"),
                       QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/en-es/config.json")}
        << "config.json: \"format\" must be \"attnscope-lesson\"";
    QTest::newRow("lesson shots without play")
        << QStringList{QStringLiteral("lesson"), QStringLiteral("--file"), QStringLiteral("x.json"),
                       QStringLiteral("--shots"), QStringLiteral("d")}
        << "--order, --shots, --present, --size and --runs go with --play";
    const QString translation = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/lessons/02-translation.json");
    QTest::newRow("lesson order past the end")
        << QStringList{QStringLiteral("lesson"), QStringLiteral("--file"),  translation,
                       QStringLiteral("--play"), QStringLiteral("--order"), QStringLiteral("2,11")}
        << "--order takes step numbers from 1 to 10, not \"11\"";
    QTest::newRow("lesson order not a number")
        << QStringList{QStringLiteral("lesson"), QStringLiteral("--file"),  translation,
                       QStringLiteral("--play"), QStringLiteral("--order"), QStringLiteral("1,two")}
        << "not \"two\"";
}

void TestCliAnalyses::badArguments() {
    QFETCH(QStringList, args);
    QFETCH(QString, fragment);
    QByteArray out, err;
    QCOMPARE(run(args, &out, &err), 2);
    QVERIFY2(err.contains(fragment.toUtf8()), err.constData());
    QVERIFY(out.isEmpty());
}

ATTNSCOPE_GUILESS_MAIN(TestCliAnalyses)
#include "test_cli_analyses.moc"
