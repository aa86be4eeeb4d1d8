/* SPDX-License-Identifier: MIT */
/*
 * Parameters `cross-host-file` and `end-time` (doc/span-attrib.md, doc/scale.md "Per-host analysis"): this
 * span-attrib sees one host's traces (deepspan-report's per-host analysis).  What such a pass cannot compute
 * as the whole graph would (a chain that continues on another host; spans still open at the end, whose end
 * is the latest time of every host, unless `end-time` gives it) is not guessed: the first one is written to
 * the file and the pass stops with an error.  A pass that ends writes its latest event time there.
 */
#include "span-attrib.h"
#include "json-writer.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define APPEND_CAUSE(it, ...) \
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR((it)->self_msg_iter, __VA_ARGS__)

void span_attrib_cross_host_init(struct span_attrib_iterator *it)
{
	it->events_last_ns = INT64_MIN;
	if (it->comp->cross_host_file) {
		ds_chain_set_local_only(it->chain);
	}
}

/*
 * Writes the record: {stopped, last_ns} and, for a stop, {host, tid, ts, what}; false (cause appended) when
 * the file cannot be written.  `need` NULL: the pass ended.
 */
static bool write_record(struct span_attrib_iterator *it, const struct ds_chain_cross_host *need)
{
	FILE *f = fopen(it->comp->cross_host_file, "w");
	struct ds_json_writer w;

	if (!f) {
		APPEND_CAUSE(it, "%s: parameter `cross-host-file`: cannot write \"%s\" (%s); give a writable path "
			"(doc/span-attrib.md, \"Parameters\").", SPAN_ATTRIB_CLASS_NAME, it->comp->cross_host_file,
			g_strerror(errno));
		return false;
	}
	ds_json_init(&w, f, true);
	ds_json_begin_object(&w, NULL);
	ds_json_bool(&w, "stopped", need != NULL);
	if (it->last_ns == INT64_MIN) {
		ds_json_null(&w, "last_ns");
	} else {
		ds_json_int(&w, "last_ns", it->last_ns);
	}
	if (!need) {
		/* what deepspan-report checks against the end it gave (doc/scale.md, "Per-host analysis") */
		if (it->events_last_ns == INT64_MIN) {
			ds_json_null(&w, "events_last_ns");
		} else {
			ds_json_int(&w, "events_last_ns", it->events_last_ns);
		}
		ds_json_int(&w, "open_at_end", (int64_t) it->open_at_end);
	}
	if (need) {
		ds_json_string(&w, "host", need->host);
		ds_json_int(&w, "tid", need->tid);
		ds_json_int(&w, "ts", need->ts);
		ds_json_string(&w, "what", need->what);
	}
	ds_json_end_object(&w);
	fputc('\n', f);
	if (fclose(f) != 0) {
		APPEND_CAUSE(it, "%s: parameter `cross-host-file`: cannot write \"%s\" (%s); give a writable path "
			"(doc/span-attrib.md, \"Parameters\").", SPAN_ATTRIB_CLASS_NAME, it->comp->cross_host_file,
			g_strerror(errno));
		return false;
	}
	return true;
}

static enum span_attrib_status stop(struct span_attrib_iterator *it, const struct ds_chain_cross_host *need)
{
	if (!write_record(it, need)) {
		return SPAN_ATTRIB_STATUS_ERROR;
	}
	APPEND_CAUSE(it, "%s: parameter `cross-host-file`: this pass sees the traces of one host, and host `%s` "
		"needs another host's events (%s, thread %" PRId64 ", at %" PRId64 " ns); the pass stops here "
		"(\"%s\" written): run the hosts' traces in one graph (deepspan-report does this by itself, "
		"doc/scale.md, \"Per-host analysis\").", SPAN_ATTRIB_CLASS_NAME, need->host, need->what, need->tid,
		need->ts, it->comp->cross_host_file);
	return SPAN_ATTRIB_STATUS_ERROR;
}

enum span_attrib_status span_attrib_cross_host_check(struct span_attrib_iterator *it)
{
	if (!it->comp->cross_host_file || !it->chain || !it->chain->cross_host.needed) {
		return SPAN_ATTRIB_STATUS_OK;
	}
	return stop(it, &it->chain->cross_host);
}

enum span_attrib_status span_attrib_cross_host_need(struct span_attrib_iterator *it, const char *host,
		int64_t tid, int64_t ts, const char *what)
{
	struct ds_chain_cross_host need;

	if (!it->comp->cross_host_file) {
		return SPAN_ATTRIB_STATUS_OK;
	}
	memset(&need, 0, sizeof(need));
	need.needed = true;
	g_strlcpy(need.host, host ? host : "-", sizeof(need.host));
	need.tid = tid;
	need.ts = ts;
	g_strlcpy(need.what, what, sizeof(need.what));
	return stop(it, &need);
}

enum span_attrib_status span_attrib_cross_host_flush(struct span_attrib_iterator *it)
{
	GHashTableIter iter;
	gpointer value;

	it->events_last_ns = it->last_ns;
	g_hash_table_iter_init(&iter, it->hosts);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		it->open_at_end += g_hash_table_size(((const struct host *) value)->spans);
	}
	if (it->comp->end_time != INT64_MIN) {
		/* the latest event time of every host, given (deepspan-report's second pass of this host) */
		if (it->comp->end_time > it->last_ns) {
			it->last_ns = it->comp->end_time;
		}
		return SPAN_ATTRIB_STATUS_OK;
	}
	if (!it->comp->cross_host_file) {
		return SPAN_ATTRIB_STATUS_OK;
	}
	g_hash_table_iter_init(&iter, it->hosts);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		const struct host *host = value;

		if (g_hash_table_size(host->spans)) {
			return span_attrib_cross_host_need(it, host->name, -1, it->last_ns,
				"spans still open at the end of the input are truncated at the latest time of every host");
		}
	}
	return SPAN_ATTRIB_STATUS_OK;
}

enum span_attrib_status span_attrib_cross_host_end(struct span_attrib_iterator *it)
{
	if (!it->comp->cross_host_file) {
		return SPAN_ATTRIB_STATUS_OK;
	}
	if (it->chain && it->chain->cross_host.needed) {
		return stop(it, &it->chain->cross_host);
	}
	return write_record(it, NULL) ? SPAN_ATTRIB_STATUS_OK : SPAN_ATTRIB_STATUS_ERROR;
}
