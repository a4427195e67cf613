#include "ui/window/ModelPicker.h"

#include <QDir>
#include <QFileInfo>
#include <QSignalBlocker>

namespace ui {

namespace {
QString canonical(const QString& dir) {
    const QFileInfo fi(dir);
    return fi.exists() ? fi.canonicalFilePath() : QDir::cleanPath(fi.absoluteFilePath());
}
} // namespace

ModelPicker::ModelPicker(QWidget* parent) : QComboBox(parent) {
    setObjectName(QStringLiteral("modelPicker"));
    setToolTip(tr("The model to look inside: the built-in ones, folders opened before, or another folder"));
    setSizeAdjustPolicy(QComboBox::AdjustToContents);
    addItem(tr("Open Folder…"));
    connect(this, qOverload<int>(&QComboBox::activated), this, &ModelPicker::onActivated);
}

void ModelPicker::setBuiltinDirectory(const QString& dir) {
    const QSignalBlocker block(this);
    const QDir root(dir);
    for (const auto& name : root.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
        const QString path = canonical(root.filePath(name));
        if (QFileInfo::exists(path + QStringLiteral("/config.json")) && findData(path) < 0) {
            insertItem(openIndex(), name, path);
            setItemData(openIndex() - 1, path, Qt::ToolTipRole);
        }
    }
    insertSeparator(openIndex());
    setCurrentModel(shown_);
}

void ModelPicker::addFolders(const QStringList& dirs, const std::function<QString(const QString&)>& name) {
    const QSignalBlocker block(this);
    for (const auto& dir : dirs) {
        const QString path = canonical(dir);
        if (!QFileInfo::exists(path + QStringLiteral("/config.json")) || findData(path) >= 0)
            continue;
        insertItem(openIndex(), name ? name(path) : QFileInfo(path).fileName(), path);
        setItemData(openIndex() - 1, path, Qt::ToolTipRole);
    }
    setCurrentModel(shown_);
}

void ModelPicker::setCurrentModel(const QString& dir) {
    const QSignalBlocker block(this);
    if (dir.isEmpty())
        return;
    const QString path = canonical(dir);
    shown_ = path;
    int i = findData(path);
    if (i < 0) {
        insertItem(openIndex(), QFileInfo(path).fileName(), path);
        i = openIndex() - 1;
        setItemData(i, path, Qt::ToolTipRole);
    }
    setCurrentIndex(i);
}

QString ModelPicker::currentModel() const {
    return shown_;
}

QStringList ModelPicker::modelDirectories() const {
    QStringList out;
    for (int i = 0; i < count(); ++i)
        if (!itemData(i).toString().isEmpty())
            out << itemData(i).toString();
    return out;
}

void ModelPicker::onActivated(int index) {
    if (index == openIndex()) {
        setCurrentModel(shown_); // the list shows the loaded model until a folder is really opened
        Q_EMIT openFolderRequested();
        return;
    }
    const QString dir = itemData(index).toString();
    if (!dir.isEmpty() && dir != shown_)
        Q_EMIT modelChosen(dir);
}

} // namespace ui
