#pragma once
// File ▸ Open Recent: the model folders opened before (AppSettings::recentModels), most recent first, read
// again each time the menu opens so a folder opened in the meantime is there.

#include <QMenu>

namespace ui {

class RecentMenu : public QMenu {
    Q_OBJECT
public:
    explicit RecentMenu(QWidget* parent = nullptr);

Q_SIGNALS:
    void folderChosen(const QString& dir);

private:
    void fill();
};

} // namespace ui
