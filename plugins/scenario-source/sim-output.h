/* SPDX-License-Identifier: MIT */
/*
 * The simulator's output side: per-host clocks (true time -> host-local
 * timestamps) and one bounded record queue per output port (one port per
 * host and domain).  It frames events into streams and packets the way an
 * LTTng per-CPU ring buffer does, so the emitter only translates records
 * into babeltrace2 messages.  No babeltrace2 dependency.
 */
#ifndef DEEPSPAN_SCENARIO_SIM_OUTPUT_H
#define DEEPSPAN_SCENARIO_SIM_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim-events.h"

#define SIM_REC_INTS 16
#define SIM_REC_STRS 3
#define SIM_MAX_HOSTS 8
#define SIM_MAX_CPUS 64

enum sim_rec_kind {
	SIM_REC_STREAM_BEGIN,
	SIM_REC_PACKET_BEGIN,
	SIM_REC_EVENT,
	SIM_REC_PACKET_END,
	SIM_REC_DISCARDED,	/* between a packet end and the next packet begin */
	SIM_REC_STREAM_END,
};

struct sim_record {
	uint8_t kind;			/* enum sim_rec_kind */
	uint16_t event;			/* enum sim_event_id (SIM_REC_EVENT) */
	uint16_t stream;		/* CPU = stream index within the port */
	int64_t ts;			/* host-local ns since the Unix epoch */
	int64_t ts_end;			/* SIM_REC_DISCARDED: end of the lost range */
	uint64_t count;			/* SIM_REC_DISCARDED: events lost */
	int32_t vpid, vtid;		/* UST context */
	const char *procname;		/* borrowed (interned), UST context */
	int64_t v[SIM_REC_INTS];	/* integer values in field order */
	const char *s[SIM_REC_STRS];	/* borrowed (interned) strings in field order */
};

/* Host clock: local = true + offset + (true - reference) * drift_ppb / 1e9, rounded half away from 0. */
struct sim_clock {
	int64_t offset_ns;
	int64_t drift_ppb;
	int64_t reference_ns;
};

int64_t sim_clock_local(const struct sim_clock *clock, int64_t true_ns);

struct sim_port_queue {
	struct sim_record *ring;	/* owned; capacity a power of two */
	size_t cap;
	size_t head;
	size_t len;
	size_t peak;			/* largest len seen */
	bool connected;			/* a message iterator reads it; else records are dropped */
};

struct sim_stream_framing {
	bool packet_open;
	uint32_t events_in_packet;
	uint64_t pending_discarded;	/* events to report lost at the next packet switch */
	uint32_t dropping;		/* events still to drop in the current burst */
	uint64_t seen;			/* events offered to this stream */
};

struct sim_host_output {
	struct sim_clock clock;
	int64_t last_true;		/* true time of the host's last event */
	int64_t last_local;		/* its local timestamp */
	struct sim_stream_framing streams[2][SIM_MAX_CPUS];	/* [domain][cpu] */
};

struct sim_output {
	unsigned int hosts;
	unsigned int cpus;
	uint32_t packet_events;		/* events per packet before a packet switch */
	uint64_t discard_every;		/* kernel streams lose a burst every that many events (0: never) */
	uint32_t discard_burst;		/* events lost per burst */
	uint64_t discarded;		/* events lost so far (all streams) */
	struct sim_host_output host[SIM_MAX_HOSTS];
	struct sim_port_queue port[2 * SIM_MAX_HOSTS];	/* [host * 2 + domain] */
	struct sim_record scratch;	/* records of unconnected ports land here */
	uint64_t events;		/* events emitted (all ports) */
	bool finished;
};

static inline unsigned int sim_port_index(unsigned int host, enum sim_domain domain)
{
	return host * 2 + (unsigned int) domain;
}

void sim_output_init(struct sim_output *out, unsigned int hosts, unsigned int cpus,
		uint32_t packet_events, const struct sim_clock *clocks);
void sim_output_fini(struct sim_output *out);

/* Stream beginnings and first packets of every stream, at true time `start`. */
bool sim_output_start(struct sim_output *out, int64_t start);

/*
 * Appends an event record for `host`/`domain`/`cpu` at true time `now` (moved
 * to at least 2 ns after the host's previous event, so no two events of a
 * host share a local timestamp).  Returns the record to fill (its `ts` is
 * set), or NULL when memory is exhausted.
 */
struct sim_record *sim_output_event(struct sim_output *out, unsigned int host,
		enum sim_domain domain, unsigned int cpu, enum sim_event_id event, int64_t now);

/* Marks `count` events of a stream lost: reported at its next packet switch. */
void sim_output_discard(struct sim_output *out, unsigned int host,
		enum sim_domain domain, unsigned int cpu, uint64_t count);

/* The true time of a host's last event (its emission cursor). */
static inline int64_t sim_output_host_now(const struct sim_output *out, unsigned int host)
{
	return out->host[host].last_true;
}

/* Closes every packet and stream. */
bool sim_output_finish(struct sim_output *out);

/* Removes the oldest record of `port` into `dst`; false when empty. */
bool sim_output_pop(struct sim_output *out, unsigned int port, struct sim_record *dst);

static inline size_t sim_output_pending(const struct sim_output *out, unsigned int port)
{
	return out->port[port].len;
}

#endif /* DEEPSPAN_SCENARIO_SIM_OUTPUT_H */
