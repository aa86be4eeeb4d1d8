/* SPDX-License-Identifier: MIT */
/*
 * Trace-IR emitter of source.deepspan.scenario: one trace class, trace and
 * per-CPU streams per output port (host x domain) laid out like
 * lttng-modules / lttng-ust 2.13 (environment, `monotonic` clock class,
 * packet context `cpu_id`, UST event common context vpid/vtid/procname,
 * event payloads of sim-events.c), and the translation of simulator
 * records into babeltrace2 messages.
 */
#ifndef DEEPSPAN_SCENARIO_EMIT_H
#define DEEPSPAN_SCENARIO_EMIT_H

#include <babeltrace2/babeltrace.h>
#include <stdbool.h>

#include "sim-output.h"

struct sim;

struct scn_port_ir {
	bt_trace_class *trace_class;		/* owned */
	bt_stream_class *stream_class;		/* owned */
	bt_event_class *event_classes[SIM_EV_COUNT];	/* owned; NULL for the other domain */
	bt_trace *trace;			/* owned */
	bt_stream *streams[SIM_MAX_CPUS];	/* owned */
	bt_packet *packets[SIM_MAX_CPUS];	/* owned: open packet or NULL */
	int64_t clock_origin_ns;		/* local ns of raw clock value 0 (boot time) */
};

struct scn_emitter {
	unsigned int ports;
	unsigned int cpus;
	bt_clock_class *clock_classes[SIM_MAX_HOSTS];	/* owned */
	struct scn_port_ir port[2 * SIM_MAX_HOSTS];
};

/* Builds every trace class, clock class, trace and stream; false (out of memory) + error cause. */
bool scn_emitter_init(struct scn_emitter *emitter, bt_self_component *self_comp,
		const struct sim *sim);
void scn_emitter_fini(struct scn_emitter *emitter);

/* Translates one record of `port` into a message (*msg, new reference); false when out of memory. */
bool scn_emitter_message(struct scn_emitter *emitter, bt_self_message_iterator *iter,
		unsigned int port, const struct sim_record *rec, const bt_message **msg);

#endif /* DEEPSPAN_SCENARIO_EMIT_H */
