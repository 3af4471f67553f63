// IntervalSeries and ByteStepSeries are header-only; this unit keeps the
// library's file list one-to-one with its headers.
#include "sim/timeseries.h"
