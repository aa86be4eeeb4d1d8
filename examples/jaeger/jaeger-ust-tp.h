/* SPDX-License-Identifier: MIT */
/*
 * A minimal `jaeger_ust` tracepoint provider: the span schema of the published Jaeger-Go LTTng
 * instrumentation (DESIGN.md §3.2), for applications and tests that emit that schema instead of
 * `deepspan_ust`. `start_time` is the span's start in ns since the Unix epoch and `duration`
 * its length in ns, as Jaeger reports them; deepspan bounds spans by the LTTng timestamps.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER jaeger_ust

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./jaeger-ust-tp.h"

#if !defined(DEEPSPAN_JAEGER_UST_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define DEEPSPAN_JAEGER_UST_TP_H

#include <lttng/tracepoint.h>
#include <stdint.h>

LTTNG_UST_TRACEPOINT_EVENT(jaeger_ust, start_span,
	LTTNG_UST_TP_ARGS(uint64_t, trace_id_high, uint64_t, trace_id_low, uint64_t, span_id,
		uint64_t, parent_span_id, const char *, op_name, int64_t, start_time),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, trace_id_high, trace_id_high)
		lttng_ust_field_integer(uint64_t, trace_id_low, trace_id_low)
		lttng_ust_field_integer(uint64_t, span_id, span_id)
		lttng_ust_field_integer(uint64_t, parent_span_id, parent_span_id)
		lttng_ust_field_string(op_name, op_name)
		lttng_ust_field_integer(int64_t, start_time, start_time)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(jaeger_ust, end_span,
	LTTNG_UST_TP_ARGS(uint64_t, trace_id_high, uint64_t, trace_id_low, uint64_t, span_id,
		int64_t, duration),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, trace_id_high, trace_id_high)
		lttng_ust_field_integer(uint64_t, trace_id_low, trace_id_low)
		lttng_ust_field_integer(uint64_t, span_id, span_id)
		lttng_ust_field_integer(int64_t, duration, duration)
	)
)

#endif /* DEEPSPAN_JAEGER_UST_TP_H */

#include <lttng/tracepoint-event.h>
