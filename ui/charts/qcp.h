// Include QCustomPlot through this header. ui/ builds with QT_NO_FOREACH, but two
// templates in qcustomplot.h (plottables<T>(), items<T>()) still use `foreach`;
// for their simple loops a range-for is equivalent, so map it for this header only.
#pragma once

#include <QtGlobal>

#if defined(QT_NO_FOREACH) && !defined(foreach)
#define foreach(variable, container) for (variable : container)
#define TILESCOPE_QCP_FOREACH_SHIM
#endif

#include <qcustomplot.h>

#ifdef TILESCOPE_QCP_FOREACH_SHIM
#undef foreach
#undef TILESCOPE_QCP_FOREACH_SHIM
#endif
