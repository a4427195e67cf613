#include "ui/run/ModelFingerprint.h"

#include "core/model/Model.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QMutex>

namespace ui {

QString ModelFingerprint::weightsSha256(const core::Model& model) {
    if (model.directory().empty())
        return {};
    const QDir dir(QString::fromStdString(model.directory()));
    QFileInfo info(dir.filePath(QStringLiteral("model.safetensors")));
    if (!info.isFile()) // sharded weights: the index, which names every shard, stands for them
        info = QFileInfo(dir.filePath(QStringLiteral("model.safetensors.index.json")));
    if (!info.isFile())
        return {};
    const QString key = QStringLiteral("%1|%2|%3")
                            .arg(info.absoluteFilePath())
                            .arg(info.size())
                            .arg(info.lastModified().toMSecsSinceEpoch());
    static QMutex mutex;
    static QHash<QString, QString> known;
    {
        const QMutexLocker lock(&mutex);
        if (const auto it = known.constFind(key); it != known.constEnd())
            return *it;
    }
    QFile file(info.absoluteFilePath());
    if (!file.open(QIODevice::ReadOnly))
        return {};
    QCryptographicHash hash(QCryptographicHash::Sha256);
    if (!hash.addData(&file))
        return {};
    const QString hex = QString::fromLatin1(hash.result().toHex());
    const QMutexLocker lock(&mutex);
    known.insert(key, hex);
    return hex;
}

} // namespace ui
