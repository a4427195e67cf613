#include "ui/window/RecentMenu.h"

#include "ui/base/AppSettings.h"

#include <QDir>

namespace ui {

RecentMenu::RecentMenu(QWidget* parent) : QMenu(tr("Open &Recent"), parent) {
    setObjectName(QStringLiteral("recentMenu"));
    setToolTipsVisible(true);
    connect(this, &QMenu::aboutToShow, this, &RecentMenu::fill);
    fill();
}

void RecentMenu::fill() {
    clear();
    const auto dirs = AppSettings::recentModels();
    for (int i = 0; i < dirs.size(); ++i) {
        const auto& dir = dirs[i];
        // Alt+1 … Alt+8 in the open menu; the folder's name first, its path in the tooltip.
        auto* a = addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(QDir(dir).dirName()), this,
                            [this, dir] { Q_EMIT folderChosen(dir); });
        a->setToolTip(QDir::toNativeSeparators(dir));
    }
    if (dirs.isEmpty())
        addAction(tr("(no folder opened yet)"))->setEnabled(false);
}

} // namespace ui
