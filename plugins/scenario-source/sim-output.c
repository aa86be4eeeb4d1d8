/* SPDX-License-Identifier: MIT */
#include "sim-output.h"

#include <stdlib.h>
#include <string.h>

int64_t sim_clock_local(const struct sim_clock *clock, int64_t true_ns)
{
	__int128 scaled = (__int128) (true_ns - clock->reference_ns) * clock->drift_ppb;
	__int128 half = scaled >= 0 ? 500000000 : -500000000;
	int64_t drift = (int64_t) ((scaled + half) / 1000000000);

	return true_ns + clock->offset_ns + drift;
}

void sim_output_init(struct sim_output *out, unsigned int hosts, unsigned int cpus,
		uint32_t packet_events, const struct sim_clock *clocks)
{
	unsigned int h;

	memset(out, 0, sizeof(*out));
	out->hosts = hosts;
	out->cpus = cpus;
	out->packet_events = packet_events ? packet_events : 1;
	for (h = 0; h < hosts; h++) {
		out->host[h].clock = clocks[h];
	}
}

void sim_output_fini(struct sim_output *out)
{
	unsigned int p;

	for (p = 0; p < 2 * SIM_MAX_HOSTS; p++) {
		free(out->port[p].ring);
		out->port[p].ring = NULL;
	}
}

static bool queue_grow(struct sim_port_queue *queue)
{
	size_t cap = queue->cap ? queue->cap * 2 : 1024;
	struct sim_record *ring = malloc(cap * sizeof(*ring));
	size_t i;

	if (!ring) {
		return false;
	}
	for (i = 0; i < queue->len; i++) {
		ring[i] = queue->ring[(queue->head + i) & (queue->cap - 1)];
	}
	free(queue->ring);
	queue->ring = ring;
	queue->cap = cap;
	queue->head = 0;
	return true;
}

/* A new record at the tail of the port's queue (the scratch record when unconnected). */
static struct sim_record *append(struct sim_output *out, unsigned int port,
		enum sim_rec_kind kind, unsigned int stream, int64_t ts)
{
	struct sim_port_queue *queue = &out->port[port];
	struct sim_record *rec;

	if (!queue->connected) {
		rec = &out->scratch;
	} else {
		if (queue->len == queue->cap && !queue_grow(queue)) {
			return NULL;
		}
		rec = &queue->ring[(queue->head + queue->len) & (queue->cap - 1)];
		queue->len++;
		if (queue->len > queue->peak) {
			queue->peak = queue->len;
		}
	}
	rec->kind = (uint8_t) kind;
	rec->event = 0;
	rec->stream = (uint16_t) stream;
	rec->ts = ts;
	rec->ts_end = ts;
	rec->count = 0;
	return rec;
}

bool sim_output_start(struct sim_output *out, int64_t start)
{
	unsigned int h, d, c;

	for (h = 0; h < out->hosts; h++) {
		struct sim_host_output *host = &out->host[h];

		host->last_true = start;
		host->last_local = sim_clock_local(&host->clock, start);
		for (d = 0; d < 2; d++) {
			for (c = 0; c < out->cpus; c++) {
				if (!append(out, sim_port_index(h, d), SIM_REC_STREAM_BEGIN, c, host->last_local)) {
					return false;
				}
			}
			for (c = 0; c < out->cpus; c++) {
				if (!append(out, sim_port_index(h, d), SIM_REC_PACKET_BEGIN, c, host->last_local)) {
					return false;
				}
				host->streams[d][c].packet_open = true;
			}
		}
	}
	return true;
}

/* Ends the stream's packet at `ts` (reporting pending lost events) and begins the next. */
static bool switch_packet(struct sim_output *out, unsigned int h, enum sim_domain domain,
		unsigned int cpu, int64_t ts)
{
	struct sim_stream_framing *stream = &out->host[h].streams[domain][cpu];
	unsigned int port = sim_port_index(h, domain);
	struct sim_record *rec;

	if (!append(out, port, SIM_REC_PACKET_END, cpu, ts)) {
		return false;
	}
	if (stream->pending_discarded) {
		/*
		 * As sink.ctf.fs (and source.ctf.fs reading LTTng) frame it: the
		 * loss spans from the previous packet's end to the end of the
		 * packet whose counter reports it, here an empty packet.
		 */
		rec = append(out, port, SIM_REC_DISCARDED, cpu, ts);
		if (!rec) {
			return false;
		}
		rec->count = stream->pending_discarded;
		stream->pending_discarded = 0;
		if (!append(out, port, SIM_REC_PACKET_BEGIN, cpu, ts) ||
				!append(out, port, SIM_REC_PACKET_END, cpu, ts)) {
			return false;
		}
	}
	if (!append(out, port, SIM_REC_PACKET_BEGIN, cpu, ts)) {
		return false;
	}
	stream->events_in_packet = 0;
	return true;
}

/* Whether the stream loses this event (a burst every `discard_every` kernel events). */
static bool lose_event(struct sim_output *out, enum sim_domain domain, struct sim_stream_framing *stream)
{
	if (out->discard_every == 0 || domain != SIM_DOMAIN_KERNEL) {
		return false;
	}
	stream->seen++;
	if (stream->dropping == 0 && stream->seen % out->discard_every == 0) {
		stream->dropping = out->discard_burst;
	}
	if (stream->dropping == 0) {
		return false;
	}
	stream->dropping--;
	stream->pending_discarded++;
	out->discarded++;
	if (stream->dropping == 0) {
		/* report the loss at the stream's next event, as the next packet's counter */
		stream->events_in_packet = out->packet_events;
	}
	return true;
}

struct sim_record *sim_output_event(struct sim_output *out, unsigned int h,
		enum sim_domain domain, unsigned int cpu, enum sim_event_id event, int64_t now)
{
	struct sim_host_output *host = &out->host[h];
	struct sim_stream_framing *stream = &host->streams[domain][cpu];
	struct sim_record *rec;
	int64_t ts;

	if (now < host->last_true + 2) {
		now = host->last_true + 2;
	}
	ts = sim_clock_local(&host->clock, now);
	host->last_true = now;
	host->last_local = ts;
	if (lose_event(out, domain, stream)) {
		/* a full ring buffer: the tracer drops it and counts it */
		out->scratch.ts = ts;
		out->scratch.event = (uint16_t) event;
		return &out->scratch;
	}
	if (stream->events_in_packet >= out->packet_events &&
			!switch_packet(out, h, domain, cpu, ts)) {
		return NULL;
	}
	rec = append(out, sim_port_index(h, domain), SIM_REC_EVENT, cpu, ts);
	if (!rec) {
		return NULL;
	}
	rec->event = (uint16_t) event;
	rec->vpid = 0;
	rec->vtid = 0;
	rec->procname = NULL;
	stream->events_in_packet++;
	out->events++;
	return rec;
}

void sim_output_discard(struct sim_output *out, unsigned int h,
		enum sim_domain domain, unsigned int cpu, uint64_t count)
{
	out->host[h].streams[domain][cpu].pending_discarded += count;
	/* force a packet switch at the stream's next event */
	out->host[h].streams[domain][cpu].events_in_packet = out->packet_events;
}

bool sim_output_finish(struct sim_output *out)
{
	unsigned int h, d, c;

	if (out->finished) {
		return true;
	}
	for (h = 0; h < out->hosts; h++) {
		struct sim_host_output *host = &out->host[h];
		int64_t end = sim_clock_local(&host->clock, host->last_true + 2);

		for (d = 0; d < 2; d++) {
			for (c = 0; c < out->cpus; c++) {
				if (!append(out, sim_port_index(h, d), SIM_REC_PACKET_END, c, end)) {
					return false;
				}
				host->streams[d][c].packet_open = false;
			}
			for (c = 0; c < out->cpus; c++) {
				if (!append(out, sim_port_index(h, d), SIM_REC_STREAM_END, c, end)) {
					return false;
				}
			}
		}
	}
	out->finished = true;
	return true;
}

bool sim_output_pop(struct sim_output *out, unsigned int port, struct sim_record *dst)
{
	struct sim_port_queue *queue = &out->port[port];

	if (queue->len == 0) {
		return false;
	}
	*dst = queue->ring[queue->head];
	queue->head = (queue->head + 1) & (queue->cap - 1);
	queue->len--;
	return true;
}
