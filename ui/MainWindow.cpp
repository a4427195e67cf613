#include "ui/MainWindow.h"

#include "core/Errors.h"
#include "core/Model.h"
#include "core/Session.h"

#include <QAction>
#include <QFileDialog>
#include <QFontDatabase>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QStatusBar>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    source_ = new QLineEdit(central);
    source_->setPlaceholderText(tr("Type a sentence…"));
    source_->setToolTip(tr("The source text; the analysis re-runs as you type"));
    output_ = new QPlainTextEdit(central);
    output_->setReadOnly(true);
    output_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    layout->addWidget(source_);
    layout->addWidget(output_);
    setCentralWidget(central);

    auto* file = menuBar()->addMenu(tr("&File"));
    auto* open = file->addAction(tr("Open Model &Folder…"));
    open->setShortcut(QKeySequence::Open);
    connect(open, &QAction::triggered, this, [this] {
        const auto dir = QFileDialog::getExistingDirectory(this, tr("Open Model Folder"));
        if (!dir.isEmpty())
            openModel(dir);
    });
    auto* quit = file->addAction(tr("&Quit"));
    quit->setShortcut(QKeySequence::Quit);
    connect(quit, &QAction::triggered, this, &QWidget::close);
    connect(source_, &QLineEdit::textChanged, this, &MainWindow::refresh);
    resize(900, 600);
    setWindowTitle(tr("attnscope"));
}

MainWindow::~MainWindow() = default;

bool MainWindow::openModel(const QString& dir) {
    try {
        model_ = core::Model::load(dir.toStdString());
    } catch (const core::Error& e) {
        statusBar()->showMessage(tr("Cannot open model: %1").arg(QString::fromStdString(e.what())));
        return false;
    }
    setWindowTitle(tr("attnscope — %1").arg(QString::fromStdString(model_->config().name)));
    statusBar()->showMessage(tr("Loaded %1 (%2)").arg(dir, QString::fromStdString(model_->deviceName())),
                             5000);
    refresh();
    return true;
}

void MainWindow::refresh() {
    if (!model_)
        return;
    const auto text = source_->text().toStdString();
    if (text.empty()) {
        output_->setPlainText(tr("Type a sentence to see how the model reads and decodes it."));
        return;
    }
    try {
        core::Session session(model_);
        session.analyze(text);
        QString out;
        auto tokens = [](const std::vector<core::Token>& ts) {
            QStringList l;
            for (const auto& t : ts)
                l << (t.unknown ? QStringLiteral("⟨?%1⟩") : QStringLiteral("%1"))
                         .arg(QString::fromStdString(t.text));
            return l.join(QStringLiteral(" · "));
        };
        for (int i = 0; i < 32 && session.step() >= 0; ++i) {
        }
        const auto snap = session.snapshot();
        out += tr("source tokens:  %1\n").arg(tokens(snap.srcTokens));
        out += tr("decoded:        %1\n").arg(QString::fromStdString(session.decodedText()));
        out += tr("target tokens:  %1\n\n").arg(tokens(snap.tgtTokens));
        std::vector<int> order(snap.nextTokenLogProbs.size());
        std::iota(order.begin(), order.end(), 0);
        const auto k = std::min<std::size_t>(5, order.size());
        std::partial_sort(order.begin(), order.begin() + static_cast<long>(k), order.end(),
                          [&](int a, int b) {
                              return snap.nextTokenLogProbs[size_t(a)] > snap.nextTokenLogProbs[size_t(b)];
                          });
        out += tr("next-token candidates:\n");
        for (std::size_t i = 0; i < k; ++i)
            out += QStringLiteral("  %1  %2\n")
                       .arg(QString::fromStdString(model_->targetTokenizer().vocab().token(order[i])), -8)
                       .arg(std::exp(double(snap.nextTokenLogProbs[size_t(order[i])])), 0, 'f', 4);
        output_->setPlainText(out);
    } catch (const core::Error& e) {
        output_->setPlainText(QString());
        statusBar()->showMessage(QString::fromStdString(e.what()));
    }
}

} // namespace ui
