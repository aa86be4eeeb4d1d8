/* SPDX-License-Identifier: MIT */
/* Per-host state and the per-stream cache of filter.deepspan.span-attrib. */
#include "span-attrib.h"

#include <inttypes.h>
#include <string.h>
#include <xxhash.h>

guint span_key_hash(gconstpointer key)
{
	const struct sa_span *span = key;
	uint64_t ids[3] = { span->trace_id_high, span->trace_id_low, span->span_id };

	return (guint) XXH3_64bits(ids, sizeof(ids));
}

gboolean span_key_equal(gconstpointer a, gconstpointer b)
{
	const struct sa_span *x = a, *y = b;

	return x->span_id == y->span_id && x->trace_id_low == y->trace_id_low &&
		x->trace_id_high == y->trace_id_high;
}

static void span_destroy(gpointer data)
{
	sa_span_free(data);
}

void host_destroy(gpointer data)
{
	struct host *host = data;

	if (!host) {
		return;
	}
	/* Spans first: they may still be attached to the model's threads. */
	g_hash_table_destroy(host->spans);
	ds_model_destroy(host->model);
	output_fini(&host->output);
	bt_clock_class_put_ref(host->kernel_clock.clock_class);
	g_free(host->name);
	g_free(host);
}

void stream_info_destroy(gpointer data)
{
	g_free(data);
}

/* ns = seconds * 1e9 + cycles * 1e9 / frequency, checked; false on overflow. */
static bool offset_to_ns(int64_t seconds, uint64_t cycles, uint64_t frequency, int64_t *ns)
{
	__int128 v = (__int128) seconds * 1000000000 + (__int128) cycles * 1000000000 / frequency;

	if (v > INT64_MAX || v < INT64_MIN) {
		return false;
	}
	*ns = (int64_t) v;
	return true;
}

int clock_map_init(struct clock_map *map, const bt_clock_class *clock_class)
{
	int64_t seconds;
	uint64_t cycles;

	memset(map, 0, sizeof(*map));
	map->clock_class = clock_class;
	if (!clock_class) {
		return 0;
	}
	map->frequency = bt_clock_class_get_frequency(clock_class);
	bt_clock_class_get_offset(clock_class, &seconds, &cycles);
	return map->frequency && offset_to_ns(seconds, cycles, map->frequency, &map->offset_ns) ?
		0 : -1;
}

bool clock_map_ns(const struct clock_map *map, uint64_t cycles, int64_t *ns)
{
	if (map->frequency == UINT64_C(1000000000)) {
		return cycles <= INT64_MAX &&
			!__builtin_add_overflow(map->offset_ns, (int64_t) cycles, ns);
	}
	return offset_to_ns(0, cycles, map->frequency, ns) &&
		!__builtin_add_overflow(map->offset_ns, *ns, ns);
}

uint64_t clock_map_cycles(const struct clock_map *map, int64_t ns)
{
	__int128 rel = (__int128) ns - map->offset_ns, cycles;

	if (rel < 0) {
		return 0;
	}
	if (map->frequency == UINT64_C(1000000000)) {
		cycles = rel;
	} else {
		cycles = rel * map->frequency / 1000000000;
	}
	return cycles > UINT64_MAX ? UINT64_MAX : (uint64_t) cycles;
}

/* Appends the cause of a clock whose mapping to ns from origin overflows. */
void clock_map_append_overflow(struct span_attrib_iterator *it, const struct host *host,
		const bt_stream *stream, const bt_clock_class *clock_class, const char *what)
{
	const char *clock_name = bt_clock_class_get_name(clock_class);
	const char *trace_name = bt_trace_get_name(bt_stream_borrow_trace_const(stream));
	int64_t seconds;
	uint64_t offset_cycles;

	bt_clock_class_get_offset(clock_class, &seconds, &offset_cycles);
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(it->self_msg_iter,
		"%s: host `%s`, trace `%s`: %s of clock `%s` (offset %" PRId64
		" s + %" PRIu64 " cycles, frequency %" PRIu64 " Hz) does not fit in signed 64-bit "
		"nanoseconds from the clock's origin: the clock's offset is out of range or the "
		"trace is corrupt. Fix `offset_s`/`offset` of clock `%s` in the trace's metadata, "
		"or leave this trace out (see doc/span-attrib.md).",
		SPAN_ATTRIB_CLASS_NAME, host->name, trace_name ? trace_name : "(unnamed)", what,
		clock_name ? clock_name : "(unnamed)", seconds, offset_cycles,
		bt_clock_class_get_frequency(clock_class), clock_name ? clock_name : "(unnamed)");
}

struct host *host_for_trace(struct span_attrib_iterator *it, const bt_trace *trace)
{
	const bt_value *value = bt_trace_borrow_environment_entry_value_by_name_const(trace, "hostname");
	const char *name = "unknown-host";
	struct host *host;

	if (value && bt_value_is_string(value)) {
		name = bt_value_string_get(value);
	}
	host = g_hash_table_lookup(it->hosts, name);
	if (!host) {
		host = g_new0(struct host, 1);
		host->name = g_strdup(name);
		host->model = ds_model_create(it->comp->state_rule, it->comp->segments);
		if (it->chain) {
			ds_model_set_chain(host->model, it->chain, host->name);
		}
		if (it->comp->layers) {
			ds_model_set_layers(host->model, it->comp->chain_window);
		}
		if (it->comp->host_context) {
			ds_model_set_host_context(host->model);
		}
		host->spans = g_hash_table_new_full(span_key_hash, span_key_equal, NULL, span_destroy);
		host->last_ns = INT64_MIN;
		g_hash_table_insert(it->hosts, host->name, host);
	}
	return host;
}

struct stream_info *stream_info_get(struct span_attrib_iterator *it, const bt_stream *stream)
{
	unsigned int slot = stream_cache_slot(stream);
	struct stream_info *info;
	const bt_stream_class *sc;
	const bt_clock_class *cc;

	if (it->stream_cache_stream[slot] == stream) {
		return it->stream_cache_info[slot];
	}
	info = g_hash_table_lookup(it->streams, stream);
	if (info) {
		goto end;
	}
	sc = bt_stream_borrow_class_const(stream);
	cc = clock_fit_stream_clock(it, bt_stream_class_borrow_default_clock_class_const(sc));
	info = g_new0(struct stream_info, 1);
	info->host = host_for_trace(it, bt_stream_borrow_trace_const(stream));
	if (clock_map_init(&info->clock, cc)) {
		clock_map_append_overflow(it, info->host, stream, cc, "the offset");
		g_free(info);
		return NULL;
	}
	info->cpu_id = ds_field_ref_find(bt_stream_class_borrow_packet_context_field_class_const(sc),
		DS_FIELD_SCOPE_PAYLOAD, "cpu_id");
	info->cpu = -1;
	if (it->comp->layers) {
		span_attrib_note_families(info->host, sc);
		if (!info->host->kernel_clock.clock_class && cc && ds_field_ref_is_int(info->cpu_id)) {
			/* kept referenced: the deepspan:disk events may copy it after its trace is gone */
			info->host->kernel_clock = info->clock;
			bt_clock_class_get_ref(cc);
		}
	}
	g_hash_table_insert(it->streams, (gpointer) stream, info);
end:
	it->stream_cache_stream[slot] = stream;
	it->stream_cache_info[slot] = info;
	return info;
}
