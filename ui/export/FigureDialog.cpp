#include "ui/export/FigureDialog.h"

#include "ui/base/AppSettings.h"
#include "ui/export/AttentionFigure.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLineEdit>
#include <QSpinBox>

namespace ui {

FigureDialog::FigureDialog(const QString& defaultTitle, QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Export Figure"));
    const auto chosen = AppSettings::figureChoice();
    auto* form = new QFormLayout(this);
    figure_ = new QComboBox(this);
    figure_->setObjectName(QStringLiteral("figureBox"));
    const QStringList names = AttentionFigure::names();
    figure_->addItem(tr("The shown head (detail heatmap)"), names[0]);
    figure_->addItem(tr("Every head of the shown kind (grid)"), names[1]);
    figure_->addItem(tr("The next-token chart"), names[2]);
    figure_->addItem(tr("The positional curves"), names[3]);
    figure_->setToolTip(tr("One figure, without the window's buttons, on a white background"));
    figure_->setCurrentIndex(std::max<int>(0, static_cast<int>(names.indexOf(chosen.figure))));
    form->addRow(tr("&Figure:"), figure_);
    heads_ = new QLineEdit(QStringLiteral("all"), this);
    heads_->setObjectName(QStringLiteral("headsEdit"));
    heads_->setToolTip(tr("The heads a grid shows: all, or a list such as 0, 2, mean"));
    form->addRow(tr("&Heads (grid):"), heads_);
    font_ = new QDoubleSpinBox(this);
    font_->setObjectName(QStringLiteral("fontSpin"));
    font_->setRange(4, 36);
    font_->setSuffix(tr(" pt"));
    font_->setValue(chosen.fontPt);
    font_->setToolTip(tr("Size of the labels in the figure; the title is 1.3 times larger"));
    form->addRow(tr("F&ont size:"), font_);
    titled_ = new QCheckBox(tr("&Title"), this);
    titled_->setChecked(chosen.titled);
    titled_->setToolTip(tr("Draw a title above the figure"));
    title_ = new QLineEdit(defaultTitle, this);
    title_->setObjectName(QStringLiteral("titleEdit"));
    title_->setToolTip(tr("The figure's title"));
    title_->setEnabled(titled_->isChecked());
    connect(titled_, &QCheckBox::toggled, title_, &QWidget::setEnabled);
    form->addRow(titled_, title_);
    dpi_ = new QSpinBox(this);
    dpi_->setObjectName(QStringLiteral("dpiSpin"));
    dpi_->setRange(72, 1200);
    dpi_->setSingleStep(50);
    dpi_->setSuffix(tr(" DPI"));
    dpi_->setValue(chosen.dpi);
    dpi_->setToolTip(tr("Resolution of a PNG; SVG and PDF are vectors (cells as rectangles)"));
    form->addRow(tr("PNG &resolution:"), dpi_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    form->addRow(buttons);
}

QString FigureDialog::heads() const {
    return heads_->text();
}

QString FigureDialog::figure() const {
    return figure_->currentData().toString();
}

FigureStyle FigureDialog::style() const {
    FigureStyle s;
    s.fontPt = font_->value();
    s.title = titled_->isChecked() ? title_->text() : QString();
    s.dpi = dpi_->value();
    return s;
}

void FigureDialog::accept() {
    AppSettings::setFigureChoice({figure(), font_->value(), titled_->isChecked(), dpi_->value()});
    QDialog::accept();
}

} // namespace ui
