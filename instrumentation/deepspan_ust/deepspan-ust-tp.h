/* SPDX-License-Identifier: MIT */
/*
 * The LTTng-UST tracepoint provider `deepspan_ust` (DESIGN.md §3.2). Used by the library's own
 * sources only: applications call the functions of deepspan-ust.h.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER deepspan_ust

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./deepspan-ust-tp.h"

#if !defined(DEEPSPAN_UST_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define DEEPSPAN_UST_TP_H

#include <lttng/tracepoint.h>
#include <stdint.h>

LTTNG_UST_TRACEPOINT_EVENT(deepspan_ust, span_start,
	LTTNG_UST_TP_ARGS(uint64_t, trace_id_high, uint64_t, trace_id_low, uint64_t, span_id,
		uint64_t, parent_span_id, const char *, service, const char *, operation,
		uint8_t, kind),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, trace_id_high, trace_id_high)
		lttng_ust_field_integer(uint64_t, trace_id_low, trace_id_low)
		lttng_ust_field_integer(uint64_t, span_id, span_id)
		lttng_ust_field_integer(uint64_t, parent_span_id, parent_span_id)
		lttng_ust_field_string(service, service)
		lttng_ust_field_string(operation, operation)
		lttng_ust_field_integer(uint8_t, kind, kind)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(deepspan_ust, span_end,
	LTTNG_UST_TP_ARGS(uint64_t, trace_id_high, uint64_t, trace_id_low, uint64_t, span_id,
		uint8_t, status),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, trace_id_high, trace_id_high)
		lttng_ust_field_integer(uint64_t, trace_id_low, trace_id_low)
		lttng_ust_field_integer(uint64_t, span_id, span_id)
		lttng_ust_field_integer(uint8_t, status, status)
	)
)

/* span_activate and span_deactivate share one layout: the span's identity. */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(deepspan_ust, span_ids,
	LTTNG_UST_TP_ARGS(uint64_t, trace_id_high, uint64_t, trace_id_low, uint64_t, span_id),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, trace_id_high, trace_id_high)
		lttng_ust_field_integer(uint64_t, trace_id_low, trace_id_low)
		lttng_ust_field_integer(uint64_t, span_id, span_id)
	)
)

LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(deepspan_ust, span_ids, deepspan_ust, span_activate,
	LTTNG_UST_TP_ARGS(uint64_t, trace_id_high, uint64_t, trace_id_low, uint64_t, span_id))

LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(deepspan_ust, span_ids, deepspan_ust, span_deactivate,
	LTTNG_UST_TP_ARGS(uint64_t, trace_id_high, uint64_t, trace_id_low, uint64_t, span_id))

#endif /* DEEPSPAN_UST_TP_H */

#include <lttng/tracepoint-event.h>
