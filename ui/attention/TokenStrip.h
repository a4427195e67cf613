#pragma once
// One side's tokens as a wrapping row of chips. Unknown pieces are shown marked (never dropped), special
// tokens are muted, the marked token is filled, and the newest token can be outlined. Clicking a chip asks
// for its row or column to be marked in the heatmap.

#include "core/text/Token.h"

#include <QWidget>

#include <string>
#include <vector>

namespace ui {

class TokenStrip : public QWidget {
    Q_OBJECT
public:
    explicit TokenStrip(const QString& title, QWidget* parent = nullptr);

    void setTokens(const std::vector<core::Token>& tokens);
    /// The chip drawn filled (the token marked in the heatmap); −1 for none.
    void setMarked(int index);
    /// The chip outlined as "being produced" (the newest target token); −1 for none.
    void setCurrent(int index);
    /// Where the model's reach ends: chips from `trained` on sit past max_len (drawn with a warning edge;
    /// −1 for none), and `notRead` tokens of the text were cut off (a trailing ✂ chip says how many).
    void setLimits(int trained, int notRead);
    /// Chips of tokens the user forced (drawn with a mark of their own); positions, ascending.
    void setForced(std::vector<int> positions);
    bool isForced(int index) const;
    /// The decoding timeline: per position, the point of the stream (of `points`, core's names) from which
    /// the token there was the logit lens's top up to the output, −1 for none; drawn as a small depth bar
    /// in the chip (the deeper the model had to go, the taller), said in its tooltip.
    void setCommitment(std::vector<int> commitment, std::vector<std::string> points);
    /// The point of position index, or −1.
    int commitment(int index) const;
    int notRead() const { return notRead_; }
    /// The ✂ chip's geometry (empty when nothing was cut).
    QRect cutRect() const;
    /// Placeholder text shown when there are no tokens.
    void setEmptyText(const QString& text);

    int count() const { return static_cast<int>(tokens_.size()); }
    int marked() const { return marked_; }
    /// Chip geometry in widget coordinates, for tests and tooltips.
    QRect chipRect(int index) const;
    /// The texts as shown, in order.
    QStringList displayTexts() const;

    /// Where the side's name ("source", "target") is drawn: beside the first line in sight, so a strip
    /// scrolled to its newest tokens still says which side it is.
    QRect titleRect() const;

    /// The height of a few wrapped lines: beyond it the strip should scroll.
    int maximumVisibleHeight(int lines = 3) const;

    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

Q_SIGNALS:
    /// A chip was clicked (with the keyboard modifiers held); clicking the marked chip again gives −1.
    void tokenClicked(int index, Qt::KeyboardModifiers modifiers);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    bool event(QEvent* event) override;

private:
    std::vector<QRect> layoutChips(int width) const;
    int chipAt(const QPoint& pos) const;

    QString title_;
    QString emptyText_;
    std::vector<core::Token> tokens_;
    std::vector<QString> texts_;
    std::vector<int> textWidths_; // of texts_ in the current font
    void measureTexts();
    std::vector<QRect> chips_;
    int marked_ = -1;
    int current_ = -1;
    int trained_ = -1;
    int notRead_ = 0;
    std::vector<int> forced_;
    std::vector<int> commitment_;
    std::vector<std::string> points_;
    QString cutText() const;
};

} // namespace ui
