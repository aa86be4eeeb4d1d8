/* SPDX-License-Identifier: MIT */
/*
 * filter.deepspan.sync: hosts.  A host is a clock (its UUID), named by the
 * `hostname` environment entry of a trace that uses it; a host's kernel and
 * UST traces share the clock, hence the host.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "sync.h"

void sync_host_destroy(gpointer data)
{
	struct sync_host *host = data;

	if (!host) {
		return;
	}
	g_free(host->name);
	g_free(host->clock_name);
	g_free(host);
}

void sync_format_uuid(const uint8_t *u, char out[37])
{
	snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11],
		u[12], u[13], u[14], u[15]);
}

const char *sync_hostname_of(const bt_stream *stream)
{
	const bt_value *v = stream ? bt_trace_borrow_environment_entry_value_by_name_const(
		bt_stream_borrow_trace_const(stream), "hostname") : NULL;

	return v && bt_value_is_string(v) ? bt_value_string_get(v) : NULL;
}

static int find_host(struct sync_iter *it, const char *uuid, const char *name)
{
	guint i;

	for (i = 0; i < it->hosts->len; i++) {
		struct sync_host *h = g_ptr_array_index(it->hosts, i);

		if (uuid[0] ? strcmp(h->uuid, uuid) == 0 :
				!h->uuid[0] && strcmp(h->name, name) == 0) {
			return (int) i;
		}
	}
	return -1;
}

static int new_host(struct sync_iter *it, const char *uuid, const char *name, bool origin_is_unix_epoch,
		const char *clock_name)
{
	struct sync_host *h = g_new0(struct sync_host, 1);
	guint i, same_name = 0;

	for (i = 0; i < it->hosts->len; i++) {
		const struct sync_host *o = g_ptr_array_index(it->hosts, i);

		same_name += strcmp(o->name, name) == 0 ||
			(strncmp(o->name, name, strlen(name)) == 0 && o->name[strlen(name)] == '#');
	}
	h->name = same_name ? g_strdup_printf("%s#%u", name, same_name + 1) : g_strdup(name);
	g_strlcpy(h->uuid, uuid, sizeof(h->uuid));
	h->origin_is_unix_epoch = origin_is_unix_epoch;
	h->clock_name = clock_name ? g_strdup(clock_name) : NULL;
	h->result.quality = DS_SYNC_QUALITY_ABSENT;
	h->result.parent = -1;
	h->result.to_ref = ds_transform_identity();
	h->result.accuracy_ns = -1;
	g_ptr_array_add(it->hosts, h);
	return (int) it->hosts->len - 1;
}

int sync_host_of(struct sync_iter *it, struct sync_input *in, const bt_clock_class *cc,
		const bt_message *msg)
{
	gpointer v;
	int host;
	unsigned int i;

	for (i = 0; in && i < in->cc_cache_len; i++) {
		if (in->cc_cache[i] == cc) {
			return in->host_cache[i];
		}
	}
	v = g_hash_table_lookup(it->clock_hosts, cc);
	if (v) {
		host = GPOINTER_TO_INT(v) - 1;
	} else {
		char uuid[37] = "";

		if (bt_clock_class_get_uuid(cc)) {
			sync_format_uuid(bt_clock_class_get_uuid(cc), uuid);
		}
		host = sync_host_by_identity(it, uuid, sync_hostname_of(msg ? ds_message_stream(msg) : NULL),
			bt_clock_class_origin_is_unix_epoch(cc), bt_clock_class_get_name(cc));
		if (host < 0) {
			return host;
		}
		bt_clock_class_get_ref(cc);
		g_hash_table_insert(it->clock_hosts, (gpointer) cc, GINT_TO_POINTER(host + 1));
	}
	if (in) {
		if (in->cc_cache_len < SYNC_CC_CACHE) {
			in->cc_cache[in->cc_cache_len] = cc;
			in->host_cache[in->cc_cache_len] = host;
			in->cc_cache_len++;
		}
		sync_input_saw_host(in, host);
	}
	return host;
}

int sync_host_by_identity(struct sync_iter *it, const char *uuid, const char *hostname, bool origin_is_unix_epoch,
		const char *clock_name)
{
	const char *name = hostname ? hostname : (uuid[0] ? uuid : "unknown-host");
	int host = find_host(it, uuid, name);

	if (host < 0 && it->comp->formula && ds_json_get(it->comp->formula, "hosts")->count > 0) {
		/* a formula that lists hosts lists every host of its traces */
		return sync_formula_unknown_host(it, name, uuid);
	}
	if (host < 0) {
		/* two passes, or the identity formula (no hosts): it keeps its clock */
		host = new_host(it, uuid, name, origin_is_unix_epoch, clock_name);
	}
	((struct sync_host *) g_ptr_array_index(it->hosts, host))->seen = true;
	return host;
}

void sync_input_saw_host(struct sync_input *in, int host)
{
	if (in->hosts_seen->len <= (guint) host) {
		g_array_set_size(in->hosts_seen, (guint) host + 1);
	}
	g_array_index(in->hosts_seen, gboolean, host) = TRUE;
}
