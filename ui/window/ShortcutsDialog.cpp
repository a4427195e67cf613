#include "ui/window/ShortcutsDialog.h"

#include <QDialogButtonBox>
#include <QScreen>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <algorithm>

namespace ui {

ShortcutsDialog::ShortcutsDialog(const QString& html, QWidget* parent) : QDialog(parent) {
    setObjectName(QStringLiteral("shortcutsDialog"));
    setWindowTitle(tr("Keyboard shortcuts"));
    auto* col = new QVBoxLayout(this);
    browser_ = new QTextBrowser(this);
    browser_->setObjectName(QStringLiteral("shortcutsTable"));
    browser_->setHtml(html);
    browser_->setFrameShape(QFrame::NoFrame);
    col->addWidget(browser_, 1);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    col->addWidget(buttons);
    // As tall as the table where the screen allows, and never taller than the screen's free height less a
    // title bar: the rest scrolls.
    const QScreen* screen = parent && parent->screen() ? parent->screen() : this->screen();
    const QRect free = screen ? screen->availableGeometry() : QRect(0, 0, 1024, 700);
    browser_->document()->setTextWidth(560);
    const int tableHeight = int(browser_->document()->size().height()) + 8;
    const int chrome = buttons->sizeHint().height() + col->contentsMargins().top() +
                       col->contentsMargins().bottom() + col->spacing();
    const int titleBar = 40;
    resize(std::min(620, free.width() - 20), std::min(tableHeight + chrome, free.height() - titleBar));
}

} // namespace ui
