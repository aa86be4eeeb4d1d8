/* Per-host state and the per-stream cache of filter.deepspan.span-attrib. */
#include "span-attrib.h"

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
	g_free(host->name);
	g_free(host);
}

void stream_info_destroy(gpointer data)
{
	g_free(data);
}

void clock_map_init(struct clock_map *map, const bt_clock_class *clock_class)
{
	int64_t seconds;
	uint64_t cycles;

	memset(map, 0, sizeof(*map));
	map->clock_class = clock_class;
	if (!clock_class) {
		return;
	}
	map->frequency = bt_clock_class_get_frequency(clock_class);
	bt_clock_class_get_offset(clock_class, &seconds, &cycles);
	map->offset_ns = seconds * INT64_C(1000000000) +
		(int64_t) ((__int128) cycles * 1000000000 / map->frequency);
}

int64_t clock_map_ns(const struct clock_map *map, uint64_t cycles)
{
	if (map->frequency == UINT64_C(1000000000)) {
		return map->offset_ns + (int64_t) cycles;
	}
	return map->offset_ns + (int64_t) ((__int128) cycles * 1000000000 / map->frequency);
}

uint64_t clock_map_cycles(const struct clock_map *map, int64_t ns)
{
	int64_t rel = ns - map->offset_ns;

	if (rel < 0) {
		return 0;
	}
	if (map->frequency == UINT64_C(1000000000)) {
		return (uint64_t) rel;
	}
	return (uint64_t) ((__int128) rel * map->frequency / 1000000000);
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
		host->spans = g_hash_table_new_full(span_key_hash, span_key_equal, NULL, span_destroy);
		host->last_ns = INT64_MIN;
		g_hash_table_insert(it->hosts, host->name, host);
	}
	return host;
}

struct stream_info *stream_info_get(struct span_attrib_iterator *it, const bt_stream *stream)
{
	struct stream_info *info;
	const bt_stream_class *sc;

	if (stream == it->last_stream) {
		return it->last_info;
	}
	info = g_hash_table_lookup(it->streams, stream);
	if (info) {
		goto end;
	}
	sc = bt_stream_borrow_class_const(stream);
	info = g_new0(struct stream_info, 1);
	info->host = host_for_trace(it, bt_stream_borrow_trace_const(stream));
	clock_map_init(&info->clock, bt_stream_class_borrow_default_clock_class_const(sc));
	info->cpu_id = ds_field_ref_find(bt_stream_class_borrow_packet_context_field_class_const(sc),
		DS_FIELD_SCOPE_PAYLOAD, "cpu_id");
	info->cpu = -1;
	g_hash_table_insert(it->streams, (gpointer) stream, info);
end:
	it->last_stream = stream;
	it->last_info = info;
	return info;
}
