#pragma once
// What the window remembers between runs, and under which keys: the colour map and scale, the model used
// last, the source text, the window's geometry and its splitter, the folder of the last export and the
// last training run. One place owns the keys, so a key is
// never written under one spelling and read under another.

#include <QString>

class QMainWindow;
class QSplitter;

namespace ui {

class ViewState;

class AppSettings {
public:
    /// Puts the remembered colour map and scale into state.
    static void restoreView(ViewState* state);
    /// Remembers every later change of state's colour map and scale, as it happens.
    static void trackView(ViewState* state);

    /// The model folder opened last (absolute), empty when none was.
    static QString lastModel();
    static void setLastModel(const QString& dir);

    /// The source text of the last run, or fallback when there is none (the first start).
    static QString sourceText(const QString& fallback);
    static void setSourceText(const QString& text);

    static void restoreWindow(QMainWindow* window, QSplitter* splitter);
    static void saveWindow(const QMainWindow* window, const QSplitter* splitter);

    /// The folder the last export went to (the home folder before any).
    static QString exportDir();
    static void setExportDir(const QString& dir);

    /// The Train tab's last run folder, where Continue Run… looks first; empty when none was.
    static QString lastRun();
    static void setLastRun(const QString& dir);
};

} // namespace ui
