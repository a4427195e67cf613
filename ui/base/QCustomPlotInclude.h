#pragma once
// qcustomplot.h is written with Qt's keyword macros (signals, slots, foreach, emit), which every Qt target
// here switches off (QT_NO_KEYWORDS, because torch headers use `slots` as a name). Include QCustomPlot
// through this header only: it maps the keywords for that one header and removes them again.

#define signals Q_SIGNALS
#define slots Q_SLOTS
#define emit Q_EMIT
#define foreach Q_FOREACH
#include <qcustomplot.h>
#undef signals
#undef slots
#undef emit
#undef foreach
