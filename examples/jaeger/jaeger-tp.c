/* SPDX-License-Identifier: MIT */
/* Instantiates the `jaeger_ust` probes and tracepoint definitions of the span emitter. */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "jaeger-ust-tp.h"
