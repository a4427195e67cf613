#pragma once
// Asks what figure to export and how: which one (the shown head, every head, the next-token chart), the
// font size, an optional title and, for PNG, the resolution. Remembers the choices.

#include "ui/export/FigureWriter.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QLineEdit;
class QSpinBox;
class QDoubleSpinBox;

namespace ui {

class FigureDialog : public QDialog {
    Q_OBJECT
public:
    /// `defaultTitle` fills the title field (the shown head's name).
    FigureDialog(const QString& defaultTitle, QWidget* parent = nullptr);

    /// The figure's name as AttentionFigure::save takes it.
    QString figure() const;
    FigureStyle style() const;
    /// The grid's heads as typed ("all", or "0, 2, mean").
    QString heads() const;
    void accept() override;

private:
    QComboBox* figure_ = nullptr;
    QDoubleSpinBox* font_ = nullptr;
    QCheckBox* titled_ = nullptr;
    QLineEdit* title_ = nullptr;
    QSpinBox* dpi_ = nullptr;
    QLineEdit* heads_ = nullptr;
};

} // namespace ui
