#pragma once
// The window's attention page and analysis controller, wired as MainWindow wires them and shown offscreen,
// for the bench sections that time what a user waits for: a new text until the grid and the heatmap have
// repainted, or another head until the page has repainted, and the longest the window froze on the way.
// A QApplication must exist.

#include <QString>

#include <cstddef>
#include <memory>
#include <string>

class QSize;

namespace core {
class Model;
struct AttentionSnapshot;
} // namespace core

/// One timed action, counted from the moment it was made.
struct HarnessTimes {
    double toResult = 0.0;  ///< ms to the analysis's result arriving on the GUI thread; 0 for a new head
    double toRepaint = 0.0; ///< ms to the last paint of the grid or the heatmap
    /// The longest the GUI thread went without getting back to its event loop, in ms: the longest gap
    /// between two ticks of a kStallTickMs timer, less the tick. A user's click waits this long at worst.
    double longestStall = 0.0;
};

class Harness {
public:
    /// The interval of the timer whose gaps give the longest stall.
    static constexpr int kStallTickMs = 5;

    Harness();
    ~Harness();
    Harness(const Harness&) = delete;
    Harness& operator=(const Harness&) = delete;

    /// The page's size: its size in the window at the window's default 1400 × 900.
    static QSize pageSize();

    /// Opens a model folder as the window does (ui::ModelLoader, off the GUI thread) and waits for it:
    /// toResult is the time until the loaded model is back on the GUI thread, longestStall the window's
    /// longest freeze meanwhile. The model is then the one texts run on. Throws core::Error when it fails.
    HarnessTimes load(const QString& dir);
    /// The model every following text runs on; waits until the controller is idle (not timed).
    void setModel(std::shared_ptr<const core::Model> model);
    /// The attention kind the page shows, as the window names it.
    QString kindName() const;

    /// Sets a new text (the typing debounce skipped) and waits until the grid and the heatmap have shown it.
    /// Throws core::Error when the analysis fails or the page is not repainted within minutes.
    HarnessTimes showText(const std::string& text);
    /// Selects a layer and head in the page's view state, as a click on the grid does, and waits until the
    /// page has repainted. The selection must differ from the current one (or nothing would repaint).
    HarnessTimes select(int layer, int head);
    int layer() const;
    int head() const;

    /// The snapshot the page shows, or null.
    std::shared_ptr<const core::AttentionSnapshot> snapshot() const;

private:
    class Impl;
    std::unique_ptr<Impl> d_;
};

/// Tokens the model reads for a typed text: <bos> pieces <eos> on the source side; <bos> and the prompt for
/// a decoder-only model.
std::size_t tokenCount(const core::Model& model, const std::string& text);

/// A text of everyday words that the model reads as exactly `length` tokens: whole words while they fit,
/// then short pieces that each add one token. A different `offset` starts the words elsewhere, so two texts
/// of one length differ. Throws core::InputError when the tokenizer allows no such text.
std::string textOfLength(const core::Model& model, int length, std::size_t offset);
