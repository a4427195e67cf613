#pragma once
// What the command-line tests share: the attnscope binary run as a user runs it, a scratch directory
// for the models, recipes and runs they make, and the small fixtures both suites build there.
// Inherit it beside QObject (QObject first, for moc) so test bodies can say run(...) and tmp_.

#include <QByteArray>
#include <QFile>
#include <QIODevice>
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

class CliRunner {
protected:
    // The exit code, or -1 if the program crashed or ran past two minutes, so a hang fails the test
    // instead of stalling the suite.
    int run(const QStringList& args, QByteArray* out = nullptr, QByteArray* err = nullptr,
            const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment()) {
        QProcess p;
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(ATTNSCOPE_BINARY), args);
        if (!p.waitForFinished(120000))
            return -1;
        if (out)
            *out = p.readAllStandardOutput();
        if (err)
            *err = p.readAllStandardError();
        return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    }

    QString tinyRecipe() const { return tmp_.filePath(QStringLiteral("tiny.json")); }

    // The tiny copy-task recipe, with extraFields (", \"seed\": 2") appended inside its braces.
    // Small enough that 30 steps take a few seconds on two cores.
    static QByteArray tinyRecipeJson(const char* extraFields = "") {
        return QByteArray(R"({"name": "tiny", "task": "copy", "min_len": 1, "max_len": 4,
        "model": {"d_model": 16, "heads": 2, "encoder_layers": 1, "decoder_layers": 1, "d_ff": 32},
        "batch_size": 16, "steps": 30, "checkpoint_every": 10, "eval_every": 15, "eval_examples": 20)") +
               extraFields + '}';
    }

    // A small encoder–decoder whose sides differ in vocabulary size (one vocabulary file per side).
    static constexpr const char* edConfigJson =
        R"({"name": "ed", "d_model": 32, "heads": 4, "d_ff": 64, "src_vocab_size": 120, "tgt_vocab_size": 110})";

    // `attnscope init` of a config (written beside it as NAME.json) into tmp_/NAME; empty on failure.
    QString initModel(const QString& name, const char* configJson,
                      const QString& seed = QStringLiteral("1")) {
        const auto config = tmp_.filePath(name + QStringLiteral(".json"));
        QFile f(config);
        if (!f.open(QIODevice::WriteOnly) || f.write(configJson) < 0)
            return {};
        f.close();
        const auto dir = tmp_.filePath(name);
        return run({QStringLiteral("init"), QStringLiteral("--config"), config, QStringLiteral("--out"), dir,
                    QStringLiteral("--seed"), seed}) == 0
                   ? dir
                   : QString();
    }

    // A decoder-only model's config, for the paths that must tell it apart from an encoder–decoder.
    static constexpr const char* lmConfigJson =
        R"({"name": "lm", "architecture": "decoder_only", "decoder_layers": 3,
        "d_model": 32, "heads": 2, "d_ff": 64, "tgt_vocab_size": 60, "positional_encoding": "learned"})";

    QTemporaryDir tmp_;
};

inline QByteArray fileBytes(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}
