#pragma once
// What the window remembers between runs, and under which keys: the colour map and scale, the kind, layer
// and head, the sampling settings, the model used last and the folders opened before, the source text, the
// window's geometry and its splitter, the folder of the last export and the last training run. One place owns
// the keys, so a key is never written under one spelling and read under another.

#include "core/run/AttentionSnapshot.h"
#include "core/run/Sampler.h"
#include "ui/base/WindowState.h"

#include <QString>
#include <QStringList>

class QByteArray;
class QMainWindow;

namespace ui {

class ViewState;

class AppSettings {
public:
    /// From here on, this process reads and writes a store of its own that is thrown away at exit: a batch
    /// run (--screenshot) must not change what the user's next start remembers. Call before any QSettings
    /// object is made.
    /// False when no scratch folder could be made (an unwritable TMPDIR): then nothing was redirected.
    static bool keepNothing();

    /// What the window showed when it last closed, as a state to bring it to (WindowDriver): the colour
    /// map, the scale, the colour source, the kind, layer and head, and the sampling. Its model and text are
    /// left for the caller (empty: the model open, no text); its page is the Attention page, where a start
    /// opens.
    static WindowState rememberedState();
    /// Remembers every later change of state's colour map, scale and colour source, as it happens.
    static void trackView(ViewState* state);

    /// The kind, layer and head shown last (kMeanHead for the mean); Encoder, 0, 0 before any.
    struct Selection {
        core::AttentionKind kind = core::AttentionKind::Encoder;
        int layer = 0;
        int head = 0;
    };
    static Selection selection();
    /// Remembers every later change of state's kind, layer and head, as it happens.
    static void trackSelection(ViewState* state);

    /// The decode panel's sampling settings of the last run (greedy before any).
    static core::SamplingSettings sampling();
    static void setSampling(const core::SamplingSettings& s);

    /// Model folders opened before, most recent first, at most kRecentModels; those gone are left out.
    static constexpr int kRecentModels = 8;
    static QStringList recentModels();
    static void addRecentModel(const QString& dir);

    /// The model folder opened last (absolute), empty when none was.
    static QString lastModel();
    static void setLastModel(const QString& dir);

    /// The source text of the last run, or fallback when there is none (the first start).
    static QString sourceText(const QString& fallback);
    static void setSourceText(const QString& text);

    /// The window's geometry and docks; the Attention page's panes as they were (its splitter's saveState).
    static void restoreWindow(QMainWindow* window);
    static QByteArray paneLayout();
    static void saveWindow(const QMainWindow* window, const QByteArray& paneLayout);

    /// The folder the last export went to (the home folder before any).
    static QString exportDir();
    static void setExportDir(const QString& dir);

    /// Export Figure's last choices: which figure, the font size, whether titled, the PNG resolution.
    struct FigureChoice {
        QString figure = QStringLiteral("heatmap");
        double fontPt = 9.0;
        bool titled = true;
        int dpi = 300;
    };
    static FigureChoice figureChoice();
    static void setFigureChoice(const FigureChoice& choice);

    /// The Train tab's last run folder, where Continue Run… looks first; empty when none was.
    static QString lastRun();
    static void setLastRun(const QString& dir);
};

} // namespace ui
