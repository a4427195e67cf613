#include "ui/window/HelpText.h"

#include "core/model/ModelConfig.h"

#include "core/base/BlasCore.h"
#include "core/base/PackedWeights.h"
#include "core/base/Runtime.h"
#include "ui/base/QCustomPlotInclude.h"

#include <QAction>
#include <QApplication>
#include <QKeySequence>
#include <QMenu>
#include <QMenuBar>

#include <utility>
#include <vector>

namespace ui {

namespace {

// A menu text without its mnemonic marks ("&&" is a literal ampersand).
QString plain(QString text) {
    text.replace(QLatin1String("&&"), QChar(0x1));
    text.remove(QLatin1Char('&'));
    text.replace(QChar(0x1), QLatin1Char('&'));
    return text;
}

QString row(const QString& keys, const QString& what) {
    return QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>")
        .arg(keys.toHtmlEscaped(), what.toHtmlEscaped());
}

QString heading(const QString& title) {
    return QStringLiteral("<tr><td colspan=\"2\"><i>%1</i></td></tr>").arg(title.toHtmlEscaped());
}

} // namespace

// Arrow keys as arrows, as the README's table writes them: "Ctrl+Right" reads "Ctrl+→".
QString HelpText::keyText(const QKeySequence& key) {
    QStringList parts = key.toString(QKeySequence::NativeText).split(QLatin1Char('+'));
    static const std::pair<const char*, const char*> arrows[] = {
        {"Left", "\u2190"}, {"Up", "\u2191"}, {"Right", "\u2192"}, {"Down", "\u2193"}};
    for (auto& part : parts)
        for (const auto& [name, glyph] : arrows)
            if (part == QLatin1String(name))
                part = QString::fromUtf8(glyph);
    return parts.join(QLatin1Char('+'));
}

QString HelpText::shortcuts(const QMenuBar* menus) {
    QString html = QStringLiteral("<table cellspacing=\"4\">");
    for (const auto* entry : menus->actions()) {
        const QMenu* menu = entry->menu();
        if (!menu)
            continue;
        QString rows;
        for (const auto* a : menu->actions()) {
            QStringList keys;
            for (const auto& k : a->shortcuts())
                keys << keyText(k);
            if (!keys.isEmpty())
                rows += row(keys.join(QStringLiteral(", ")), plain(a->text()));
        }
        if (!rows.isEmpty())
            html += heading(plain(menu->title())) + rows;
    }
    // Keys that the views take themselves, not through an action.
    const std::pair<const char*, const char*> viewKeys[] = {
        {QT_TR_NOOP("← →"),
         QT_TR_NOOP("previous / next head (grid or heatmap focused; the mean comes last)")},
        {QT_TR_NOOP("↑ ↓, PgUp PgDn"), QT_TR_NOOP("previous / next layer (grid or heatmap focused)")},
        {QT_TR_NOOP("Enter (in the source field)"), QT_TR_NOOP("decode to the end")},
        {QT_TR_NOOP("Click, Shift+click a token"), QT_TR_NOOP("mark its row, its column in the heatmap")},
    };
    html += heading(tr("In the views"));
    for (const auto& [keys, what] : viewKeys)
        html += row(tr(keys), tr(what));
    return html + QStringLiteral("</table>");
}

QString HelpText::about() {
    const auto blas = core::blasCoreName();
    return tr("<h3>attnscope %1</h3><p>Look inside Transformers: every layer, every head, step by step.</p>"
              "<p>Qt %2 · LibTorch %3 · QCustomPlot %4<br>%5 intra-op threads · %6 · packed weights: %7</p>")
        .arg(QApplication::applicationVersion(), QString::fromLatin1(qVersion()),
             QString::fromStdString(core::torchVersion()), QString::fromLatin1(QCUSTOMPLOT_VERSION_STR))
        .arg(core::threadCount())
        .arg(blas.empty() ? tr("BLAS: not OpenBLAS")
                          : tr("OpenBLAS kernels: %1").arg(QString::fromStdString(blas)),
             QString::fromStdString(core::PackedWeights::describe()));
}

QString HelpText::pageToolTip(Page page) {
    switch (page) {
    case Page::Attention:
        return tr(
            "Every layer and head of the chosen attention, one head in detail, and decoding step by step "
            "(Alt+1)");
    case Page::Positional:
        return tr("The model's positional encodings: table, curves, similarity and rotation (Alt+2)");
    case Page::Train:
        return tr("Train a small model on a task and watch its attention form (Alt+3)");
    case Page::Heads:
        return tr("Every decoder self-attention head scored on random tokens given twice: induction, "
                  "previous-token, first-token, entropy, distance (Alt+4)");
    case Page::Inside:
        return tr("The computation behind one row of weights: x, Q, K, V, q⊙k, the scores, scale, mask and "
                  "softmax, the weighted sum, W_O, and how the next token is drawn (Alt+5)");
    case Page::SideBySide:
        return tr("The sentence through two translation models, the seed's GRU translator beside the "
                  "Transformer: each output's attention over the source (Alt+6)");
    case Page::Rollout:
    case Page::Ablation:
    case Page::Compare:
    case Page::Lens:
        break;
    }
    return {};
}

QString HelpText::examplePrompt(const core::ModelConfig& c) {
    // A checkpoint brought from Hugging Face has no example of its own: one that suits every model of its
    // kind, in English (what the families people bring read).
    if (!c.example.empty())
        return QString::fromStdString(c.example);
    if (c.recurrent())
        return {}; // the seed's task models read their own alphabets; their configs give the example
    if (!c.hasDecoder())
        return c.maskedLmHead ? tr("The capital of France is [MASK].") : tr("The old man walked home.");
    return c.hasEncoder() ? tr("The old man walked to the small white house.")
                          : tr("The capital of France is");
}

QString HelpText::sourcePlaceholder(const core::ModelConfig& c) {
    const QString example = examplePrompt(c);
    if (!example.isEmpty())
        return tr("e.g. %1 (Enter takes it)").arg(example);
    return c.hasEncoder() ? tr("Type a sentence…") : tr("Type a prompt…");
}

QString HelpText::sourceToolTip(const core::ModelConfig* c) {
    QString tip =
        tr("The source text (the prompt, for a decoder-only model). The analysis re-runs as you type; "
           "Enter decodes it to the end. Ctrl+L focuses this field.");
    if (c && !c->description.empty())
        tip += QStringLiteral("\n\n%1: %2")
                   .arg(QString::fromStdString(c->name), QString::fromStdString(c->description));
    if (c && !c->example.empty())
        tip += tr("\nExample input: %1").arg(QString::fromStdString(c->example));
    return tip;
}

} // namespace ui
