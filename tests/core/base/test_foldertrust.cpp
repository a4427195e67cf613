// A save replaces only a folder that is recognisably attnscope's, clears only its own leftovers and never
// passes on a setuid bit; a model folder's names are followed only inside the folder; a recipe's spm_model
// is parsed before it is copied; a bounded read refuses what is too large before holding it.

#include "tests/support/TestModels.h"

#include "core/base/Errors.h"
#include "core/base/Files.h"
#include "core/base/FolderLinks.h"
#include "core/text/TokenizerFactory.h"
#include "core/train/TrainRecipe.h"
#include "core/train/TranslationData.h"

#include <QtTest>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

void writeText(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
}

// Every path under dir, relative and sorted: what a refused save must leave exactly as it was.
QStringList listing(const fs::path& dir) {
    QStringList out;
    for (const auto& e : fs::recursive_directory_iterator(dir))
        out << QString::fromStdString(fs::relative(e.path(), dir).string());
    out.sort();
    return out;
}

// The message of what f throws as core::Error, or empty when it throws nothing.
template <typename F> QString thrown(F&& f) {
    try {
        f();
    } catch (const core::Error& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

std::shared_ptr<const core::Model> tinyModel() {
    return randomModel(smallConfig(core::Architecture::DecoderOnly, core::PositionalEncoding::Sinusoidal));
}

// A process id that no process has now: a child that has exited and been reaped.
pid_t deadPid() {
    const pid_t child = ::fork();
    if (child == 0)
        ::_exit(0);
    int status = 0;
    ::waitpid(child, &status, 0);
    return child;
}

void mark(const fs::path& dir, long pid) {
    writeText(dir / core::kFolderMarker,
              "written by attnscope: a save may replace this folder\npid " + std::to_string(pid) + "\n");
}

} // namespace

class TestFolderTrust : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void refusesAFolderThatIsNotOurs_data();
    void refusesAFolderThatIsNotOurs();
    void replacesOursKeepingItsExtraFiles();
    void replacesAnUnmarkedFolderOfOurFilesOnly();
    void clearsOnlyItsOwnLeftovers();
    void rewriteDropsSetuidAndSetgid();
    void linksOutsideTheFolderAreRefused_data();
    void linksOutsideTheFolderAreRefused();
    void linksInsideAndIntoTheHubCacheAreFollowed();
    void followLinksWhenTheUserSaysSo();
    void recipeSpmModelIsParsedBeforeItIsCopied();
    void boundedReadRefusesLargerFiles();

private:
    QTemporaryDir tmp_;
    fs::path root() const { return fs::path(tmp_.path().toStdString()); }
};

void TestFolderTrust::refusesAFolderThatIsNotOurs_data() {
    QTest::addColumn<QString>("inside");
    QTest::addColumn<QString>("named");
    QTest::newRow("a project with src and .git") << "src/main.c .git/HEAD"
                                                 << "src (a folder)";
    QTest::newRow("a note beside config.json") << "notes.txt"
                                               << "notes.txt";
    QTest::newRow("a link") << "@link"
                            << "link (a link)";
}

void TestFolderTrust::refusesAFolderThatIsNotOurs() {
    QFETCH(QString, inside);
    QFETCH(QString, named);
    static int row = 0;
    const auto dir = root() / ("foreign-" + std::to_string(++row));
    writeText(dir / "config.json", "{}");
    for (const auto& item : inside.split(QLatin1Char(' '))) {
        if (item.startsWith(QLatin1Char('@')))
            fs::create_symlink("/etc/hostname", dir / item.mid(1).toStdString());
        else
            writeText(dir / item.toStdString(), "the user's own\n");
    }
    const auto before = listing(dir);
    const auto message = thrown([&] { tinyModel()->save(dir.string()); });
    QVERIFY2(message.contains(named), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("did not write")), qPrintable(message));
    QCOMPARE(listing(dir), before); // nothing of it touched
    QCOMPARE(core::readFile((dir / "config.json").string()), std::string("{}"));
    for (const auto& e : fs::directory_iterator(dir.parent_path())) // no half-made folder left beside it
        QVERIFY2(e.path().filename().string().find(".new-") == std::string::npos, e.path().c_str());
}

void TestFolderTrust::replacesOursKeepingItsExtraFiles() {
    const auto dir = root() / "ours";
    tinyModel()->save(dir.string());
    QVERIFY(fs::exists(dir / core::kFolderMarker));
    writeText(dir / "README.md", "what this model is\n");
    tinyModel()->save(dir.string(), core::DType::F16);
    QCOMPARE(core::readFile((dir / "README.md").string()), std::string("what this model is\n"));
    QVERIFY(fs::exists(dir / "model.safetensors"));
    // A subfolder is never part of a model: even in a folder of ours it is refused rather than lost.
    writeText(dir / "runs" / "log.txt", "kept\n");
    const auto message = thrown([&] { tinyModel()->save(dir.string()); });
    QVERIFY2(message.contains(QStringLiteral("runs (a folder)")), qPrintable(message));
    QCOMPARE(core::readFile((dir / "runs" / "log.txt").string()), std::string("kept\n"));
}

void TestFolderTrust::replacesAnUnmarkedFolderOfOurFilesOnly() {
    // A model folder written before the marker existed holds nothing but the files a save writes.
    const auto dir = root() / "older";
    tinyModel()->save(dir.string());
    fs::remove(dir / core::kFolderMarker);
    tinyModel()->save(dir.string());
    QVERIFY(fs::exists(dir / "config.json"));
    QVERIFY(fs::exists(dir / core::kFolderMarker));
}

void TestFolderTrust::clearsOnlyItsOwnLeftovers() {
    const auto dir = root() / "left";
    const auto beside = [&](const char* suffix) { return fs::path(dir.string() + ".new-" + suffix); };
    writeText(beside("abcdef") / "data.csv", "someone else's\n"); // the right name, no marker
    mark(beside("killed"), deadPid());                            // a save that was killed midway
    mark(beside("living"), ::getppid());                          // a save another process is making
    fs::create_directories(root() / "elsewhere");
    mark(root() / "elsewhere", deadPid());
    fs::create_directory_symlink(root() / "elsewhere", beside("linked")); // a link is never followed
    tinyModel()->save(dir.string());
    QVERIFY(fs::exists(beside("abcdef") / "data.csv"));
    QVERIFY(!fs::exists(beside("killed")));
    QVERIFY(fs::exists(beside("living") / core::kFolderMarker));
    QVERIFY(fs::is_symlink(beside("linked")));
    QVERIFY(fs::exists(root() / "elsewhere" / core::kFolderMarker));
}

void TestFolderTrust::rewriteDropsSetuidAndSetgid() {
    const auto path = (root() / "tool.json").string();
    core::writeFileAtomically(path, "old");
    QCOMPARE(::chmod(path.c_str(), 06750), 0);
    core::writeFileAtomically(path, "new");
    struct stat st {};
    QCOMPARE(::stat(path.c_str(), &st), 0);
    QCOMPARE(st.st_mode & 07000, mode_t(0));   // the special bits are gone
    QCOMPARE(st.st_mode & 0777, mode_t(0750)); // the permissions stay
}

void TestFolderTrust::linksOutsideTheFolderAreRefused_data() {
    QTest::addColumn<QString>("file"); // the file of the model folder made a link to a private file
    QTest::newRow("vocab.json") << "vocab.json";
    QTest::newRow("config.json") << "config.json";
    QTest::newRow("model.safetensors") << "model.safetensors";
}

void TestFolderTrust::linksOutsideTheFolderAreRefused() {
    QFETCH(QString, file);
    const auto dir = root() / ("linked-" + file.toStdString());
    tinyModel()->save(dir.string());
    const auto secret = root() / "private" / file.toStdString();
    fs::create_directories(secret.parent_path());
    fs::rename(dir / file.toStdString(), secret); // the real bytes, so only the link's place refuses it
    fs::create_symlink(secret, dir / file.toStdString());
    const auto message = thrown([&] { core::Model::load(dir.string(), core::DeviceChoice::Cpu); });
    QVERIFY2(message.contains(QStringLiteral("outside the folder")), qPrintable(message));
    QVERIFY2(message.contains(QString::fromStdString(secret.string())), qPrintable(message));
}

void TestFolderTrust::linksInsideAndIntoTheHubCacheAreFollowed() {
    // A link to a file of the folder's own is the folder's.
    const auto dir = root() / "inside";
    tinyModel()->save(dir.string());
    fs::create_directories(dir / "files");
    fs::rename(dir / "vocab.json", dir / "files" / "vocab.json");
    fs::create_symlink("files/vocab.json", dir / "vocab.json");
    QVERIFY(core::Model::load(dir.string(), core::DeviceChoice::Cpu) != nullptr);
    // The Hugging Face cache: snapshots/<revision>/<file> -> ../../blobs/<hash>.
    const auto repo = root() / "models--someone--tiny";
    const auto snapshot = repo / "snapshots" / "0123abcd";
    tinyModel()->save(snapshot.string());
    fs::create_directories(repo / "blobs");
    for (const char* name : {"config.json", "vocab.json", "model.safetensors"}) {
        fs::rename(snapshot / name, repo / "blobs" / (std::string("blob-") + name));
        fs::create_symlink(fs::path("../../blobs") / (std::string("blob-") + name), snapshot / name);
    }
    QVERIFY(core::Model::load(snapshot.string(), core::DeviceChoice::Cpu) != nullptr);
    // The cache's blobs are those of its own repository, not any folder called blobs.
    QVERIFY(!core::linkRefusal(snapshot.string(), (root() / "inside" / "config.json").string()).empty());
}

void TestFolderTrust::followLinksWhenTheUserSaysSo() {
    const auto dir = root() / "told";
    writeText(root() / "keys" / "id", "not for a dump\n");
    fs::create_directories(dir);
    fs::create_symlink(root() / "keys" / "id", dir / "vocab.txt");
    QVERIFY(!thrown([&] { core::readFolderFile((dir / "vocab.txt").string()); }).isEmpty());
    ::setenv("ATTNSCOPE_FOLLOW_LINKS", "1", 1);
    const auto message = thrown([&] { core::readFolderFile((dir / "vocab.txt").string()); });
    ::unsetenv("ATTNSCOPE_FOLLOW_LINKS");
    QCOMPARE(message, QString());
    // A BERT folder's vocab.txt read through the tokenizer factory (the path that put a key's lines into a
    // dump) is refused the same way, as is a tokenizer_config.json linked elsewhere.
    core::TokenizerSpec spec;
    spec.kind = core::TokenizerKind::HfJson;
    auto refused = thrown([&] { core::readTokenizer(spec, dir.string(), "tokenizer.json"); });
    QVERIFY2(refused.contains(QStringLiteral("outside the folder")), qPrintable(refused));
    fs::remove(dir / "vocab.txt");
    writeText(dir / "vocab.txt", "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nhello\n");
    fs::create_symlink(root() / "keys" / "id", dir / "tokenizer_config.json");
    refused = thrown([&] { core::readTokenizer(spec, dir.string(), "tokenizer.json"); });
    QVERIFY2(refused.contains(QStringLiteral("tokenizer_config.json")) &&
                 refused.contains(QStringLiteral("outside the folder")),
             qPrintable(refused));
}

void TestFolderTrust::recipeSpmModelIsParsedBeforeItIsCopied() {
    const auto run = root() / "run";
    writeText(root() / "pairs.tsv", "a b\tc d\ne f\tg h\n");
    writeText(root() / "secret.txt", "a private file, not a SentencePiece model\n");
    const auto recipe = core::TrainRecipe::fromJson(
        R"({"name": "t", "task": "translation", "corpus": "pairs.tsv", "valid": "pairs.tsv",
            "spm_model": "secret.txt", "spm_vocab_size": 300,
            "model": {"architecture": "encoder_decoder", "encoder_layers": 1, "decoder_layers": 1,
                      "d_model": 8, "heads": 2, "d_ff": 16, "max_len": 16}})",
        "r.json", root().string());
    const auto message = thrown([&] { core::TranslationData data(recipe, run.string()); });
    QVERIFY2(message.contains(QStringLiteral("secret.txt")), qPrintable(message));
    QVERIFY2(!fs::exists(run / "spm.model"), "a file that is not a model was copied into the run");
}

void TestFolderTrust::boundedReadRefusesLargerFiles() {
    const auto path = (root() / "lesson.json").string();
    core::writeFileAtomically(path, std::string(100, 'x'));
    QCOMPARE(core::readFile(path, 100).size(), std::size_t(100));
    const auto message = thrown([&] { core::readFile(path, 99); });
    QVERIFY2(message.contains(QStringLiteral("larger than 99 bytes")), qPrintable(message));
}

QTEST_APPLESS_MAIN(TestFolderTrust)
#include "test_foldertrust.moc"
