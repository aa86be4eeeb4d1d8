/* SPDX-License-Identifier: MIT */
/* Instantiates the `deepspan_ust` probes and tracepoint definitions inside libdeepspan-ust. */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "deepspan-ust-tp.h"
