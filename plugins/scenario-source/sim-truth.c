/* SPDX-License-Identifier: MIT */
#include "sim-truth.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json-writer.h"
#include "sim-chain.h"
#include "sim.h"

struct sim_truth {
	FILE *file;			/* owned */
	FILE *requests_file;		/* owned: temporary */
	struct ds_json_writer writer;
	struct ds_json_writer requests_writer;
	bool open_spans;		/* the "open_spans" array was begun */
	GArray *leaves;			/* owned: struct sim_chain_leaf, reused per span */
};

static void write_uuid(char *buf, size_t size, const struct sim *sim, unsigned int host);

static void write_header(struct sim_truth *truth, const struct sim *sim)
{
	struct ds_json_writer *w = &truth->writer;
	unsigned int h;

	ds_json_begin_object(w, NULL);
	ds_json_string(w, "generator", "source.deepspan.scenario");
	ds_json_string(w, "preset", sim->cfg.preset->name);
	ds_json_uint(w, "seed", sim->cfg.seed);
	ds_json_uint(w, "request_count", sim->cfg.requests);
	ds_json_string(w, "span_schema",
		sim->cfg.span_schema == SIM_SPANS_JAEGER ? "jaeger_ust" : "deepspan_ust");
	ds_json_string(w, "cause", sim_cause_name(sim->cfg.cause));
	ds_json_double(w, "slow_ratio", sim->cfg.slow_ratio);
	ds_json_begin_array(w, "hosts");
	for (h = 0; h < sim->cfg.hosts; h++) {
		char uuid[40];

		write_uuid(uuid, sizeof(uuid), sim, h);
		ds_json_begin_object(w, NULL);
		ds_json_string(w, "name", sim->host[h].name);
		ds_json_string(w, "clock_uuid", uuid);
		ds_json_uint(w, "cpus", sim->host[h].ncpus);
		ds_json_begin_object(w, "clock");
		ds_json_int(w, "offset_ns", sim->cfg.clocks[h].offset_ns);
		ds_json_int(w, "drift_ppb", sim->cfg.clocks[h].drift_ppb);
		ds_json_int(w, "reference_ns", sim->cfg.clocks[h].reference_ns);
		ds_json_end_object(w);
		ds_json_end_object(w);
	}
	ds_json_end_array(w);
	ds_json_begin_array(w, "spans");
}

static void write_uuid(char *buf, size_t size, const struct sim *sim, unsigned int host)
{
	uint8_t bytes[16];

	sim_host_clock_uuid(sim, host, bytes);
	snprintf(buf, size,
		"%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
		bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]);
}

struct sim_truth *sim_truth_open(const char *path, const struct sim *sim,
		char *error, size_t error_size)
{
	struct sim_truth *truth = calloc(1, sizeof(*truth));

	if (!truth) {
		snprintf(error, error_size, "out of memory");
		goto error;
	}
	truth->file = fopen(path, "w");
	if (!truth->file) {
		snprintf(error, error_size, "cannot create truth file \"%s\": %s", path, strerror(errno));
		goto error;
	}
	truth->requests_file = tmpfile();
	if (!truth->requests_file) {
		snprintf(error, error_size, "cannot create a temporary file for the truth's requests: %s",
			strerror(errno));
		goto error;
	}
	truth->leaves = g_array_new(FALSE, FALSE, sizeof(struct sim_chain_leaf));
	ds_json_init(&truth->writer, truth->file, false);
	write_header(truth, sim);
	/* the requests array is written as if nested in the top-level object (depth 1) */
	ds_json_init(&truth->requests_writer, truth->requests_file, false);
	truth->requests_writer.depth = 1;
	truth->requests_writer.has_members[1] = false;
	ds_json_begin_array(&truth->requests_writer, "requests");
	return truth;

error:
	sim_truth_abort(truth);
	return NULL;
}

static void write_chain(struct sim_truth *truth, const struct sim *sim, const struct sim_span *span,
		int64_t end)
{
	struct ds_json_writer *w = &truth->writer;
	const struct sim_thread *t = sim_thread_find(sim, span->host, span->tid);
	guint i;

	g_array_set_size(truth->leaves, 0);
	if (t) {
		sim_chain_span(sim, t, span->begin, end, truth->leaves);
	}
	ds_json_begin_array(w, "chain");
	for (i = 0; i < truth->leaves->len; i++) {
		const struct sim_chain_leaf *l = &g_array_index(truth->leaves, struct sim_chain_leaf, i);

		ds_json_begin_object(w, NULL);
		ds_json_int(w, "segment_begin", l->segment_begin);
		ds_json_int(w, "begin", l->begin);
		ds_json_int(w, "end", l->end);
		ds_json_string(w, "host", sim->host[l->host].name);
		ds_json_int(w, "pid", l->pid);
		ds_json_int(w, "tid", l->tid);
		ds_json_string(w, "comm", l->comm);
		ds_json_string(w, "state", sim_tstate_name((enum sim_tstate) l->state));
		ds_json_string(w, "kind", ds_chain_kind_name((enum ds_chain_kind) l->kind));
		ds_json_uint(w, "depth", l->depth);
		ds_json_string(w, "detail", l->detail);
		ds_json_uint(w, "bytes", l->bytes);
		ds_json_end_object(w);
	}
	ds_json_end_array(w);
}

static void write_span(struct sim_truth *truth, const struct sim *sim, const struct sim_span *span,
		int64_t end, bool open);

void sim_truth_span(struct sim_truth *truth, const struct sim *sim, const struct sim_span *span)
{
	write_span(truth, sim, span, span->end, false);
}

void sim_truth_open_span(struct sim_truth *truth, const struct sim *sim, const struct sim_span *span,
		int64_t end)
{
	if (!truth->open_spans) {
		ds_json_end_array(&truth->writer);	/* spans */
		ds_json_begin_array(&truth->writer, "open_spans");
		truth->open_spans = true;
	}
	write_span(truth, sim, span, end, true);
}

static void write_span(struct sim_truth *truth, const struct sim *sim, const struct sim_span *span,
		int64_t end, bool open)
{
	struct ds_json_writer *w = &truth->writer;
	unsigned int s;

	ds_json_begin_object(w, NULL);
	ds_json_uint(w, "trace_id_high", span->trace_id_high);
	ds_json_uint(w, "trace_id_low", span->trace_id_low);
	ds_json_uint(w, "span_id", span->span_id);
	ds_json_uint(w, "parent_span_id", span->parent_span_id);
	ds_json_string(w, "host", sim->host[span->host].name);
	ds_json_string(w, "service", span->service);
	ds_json_string(w, "operation", span->operation);
	ds_json_uint(w, "kind", span->kind);
	ds_json_int(w, "pid", span->pid);
	ds_json_int(w, "tid", span->tid);
	ds_json_int(w, "begin", span->begin);
	ds_json_int(w, "end", end);
	if (open) {
		ds_json_bool(w, "truncated", true);
	}
	ds_json_begin_object(w, "states");
	for (s = 0; s < SIM_ST_COUNT; s++) {
		ds_json_int(w, sim_tstate_name((enum sim_tstate) s), span->states[s]);
	}
	ds_json_end_object(w);
	ds_json_begin_array(w, "syscalls");
	for (s = 0; s < SIM_SYS_COUNT; s++) {
		if (span->syscalls[s].count == 0) {
			continue;
		}
		ds_json_begin_object(w, NULL);
		ds_json_string(w, "name", sim_syscall_name((enum sim_syscall) s));
		ds_json_uint(w, "count", span->syscalls[s].count);
		ds_json_int(w, "duration", span->syscalls[s].duration);
		ds_json_end_object(w);
	}
	ds_json_end_array(w);
	if (sim->cfg.cause == SIM_CAUSE_DISK || sim->cfg.cause == SIM_CAUSE_DISK_CONTENTION ||
			sim->cfg.cause == SIM_CAUSE_CACHE_MISS) {
		ds_json_uint(w, "cache_hits", span->cache_hits);
		ds_json_uint(w, "cache_misses", span->cache_misses);
		ds_json_int(w, "cache_hit_time", span->cache_hit_time);
		ds_json_int(w, "cache_miss_time", span->cache_miss_time);
	}
	if (span->chain_truth) {
		write_chain(truth, sim, span, end);
	}
	ds_json_end_object(w);
}

static void write_thread(struct ds_json_writer *w, const char *key, const struct sim *sim,
		const struct sim_thread *t)
{
	ds_json_begin_object(w, key);
	ds_json_string(w, "host", sim->host[t->host].name);
	ds_json_string(w, "process", t->proc->comm);
	ds_json_string(w, "comm", t->comm);
	ds_json_int(w, "tid", t->tid);
	ds_json_end_object(w);
}

void sim_truth_request(struct sim_truth *truth, const struct sim *sim,
		const struct sim_truth_request *request)
{
	struct ds_json_writer *w = &truth->requests_writer;

	ds_json_begin_object(w, NULL);
	ds_json_uint(w, "trace_id_high", request->trace_id_high);
	ds_json_uint(w, "trace_id_low", request->trace_id_low);
	ds_json_string(w, "root_operation", request->root_operation);
	ds_json_string(w, "root_service", request->root_service);
	ds_json_int(w, "begin", request->begin);
	ds_json_int(w, "end", request->open ? -1 : request->end);
	ds_json_int(w, "latency_ns", request->open ? -1 : request->end - request->begin);
	ds_json_string(w, "cause", request->cause);
	ds_json_bool(w, "slow", request->slow);
	if (request->open) {
		ds_json_bool(w, "open", true);
	}
	if (request->culprit) {
		write_thread(w, "culprit", sim, request->culprit);
	}
	if (request->cycle_peer) {
		ds_json_begin_array(w, "cycle");
		write_thread(w, NULL, sim, request->culprit);
		write_thread(w, NULL, sim, request->cycle_peer);
		ds_json_end_array(w);
	}
	ds_json_end_object(w);
}

bool sim_truth_close(struct sim_truth *truth, uint64_t tcp_segments, uint64_t discarded_events)
{
	char buf[65536];
	size_t n;
	bool ok = true;

	ds_json_end_array(&truth->writer);	/* spans or open_spans */
	ds_json_end_array(&truth->requests_writer);
	fflush(truth->requests_file);
	rewind(truth->requests_file);
	fputc(',', truth->file);
	while ((n = fread(buf, 1, sizeof(buf), truth->requests_file)) > 0) {
		if (fwrite(buf, 1, n, truth->file) != n) {
			ok = false;
			break;
		}
	}
	if (ferror(truth->requests_file)) {
		ok = false;
	}
	ds_json_uint(&truth->writer, "tcp_segments", tcp_segments);
	ds_json_uint(&truth->writer, "discarded_events", discarded_events);
	ds_json_end_object(&truth->writer);
	fputc('\n', truth->file);
	if (ferror(truth->file)) {
		ok = false;
	}
	if (fclose(truth->file) != 0) {
		ok = false;
	}
	truth->file = NULL;
	sim_truth_abort(truth);
	return ok;
}

void sim_truth_abort(struct sim_truth *truth)
{
	if (!truth) {
		return;
	}
	if (truth->file) {
		fclose(truth->file);
	}
	if (truth->requests_file) {
		fclose(truth->requests_file);
	}
	if (truth->leaves) {
		g_array_free(truth->leaves, TRUE);
	}
	free(truth);
}
