/* SPDX-License-Identifier: MIT */
/*
 * filter.deepspan.sync: Node.js HTTP pairs (vnode provider: doc/nodejs.md, doc/sync.md).
 *
 * A client request (sent by the client host) matches the server request (received
 * by the server host) of the same connection: the client's (local_port, port) is
 * the server's (port, local_port).  The server response (sent) matches the client
 * response (received) the same way.  Several requests share a keep-alive
 * connection, so the n-th send of a connection and direction pairs with its n-th
 * receive.
 */
#include <string.h>
#include <xxhash.h>

#include "sync.h"

struct http_key {
	uint32_t client_port;
	uint32_t server_port;
	uint32_t response;		/* 0: request (client -> server), 1: response */
};

struct http_stamp {
	int host;
	int64_t ts;
};

struct http_entry {
	struct http_key key;		/* first: the hash key */
	GArray *sends;			/* owned; struct http_stamp in reading order */
	GArray *recvs;			/* owned */
};

static guint http_hash(gconstpointer p)
{
	return (guint) XXH64(p, sizeof(struct http_key), 0);
}

static gboolean http_equal(gconstpointer a, gconstpointer b)
{
	return memcmp(a, b, sizeof(struct http_key)) == 0;
}

static void http_entry_free(gpointer p)
{
	struct http_entry *e = p;

	g_array_free(e->sends, TRUE);
	g_array_free(e->recvs, TRUE);
	g_free(e);
}

GHashTable *sync_http_table_new(void)
{
	return g_hash_table_new_full(http_hash, http_equal, NULL, http_entry_free);
}

void sync_http_classify(const bt_event_class *ec, struct sync_http_class *out)
{
	static const struct {
		const char *name;
		enum sync_http_role role;
	} roles[] = {
		{ "vnode:http_client_request", SYNC_HTTP_CLIENT_REQUEST },
		{ "vnode:http_server_request", SYNC_HTTP_SERVER_REQUEST },
		{ "vnode:http_server_response", SYNC_HTTP_SERVER_RESPONSE },
		{ "vnode:http_client_response", SYNC_HTTP_CLIENT_RESPONSE },
	};
	const char *name = bt_event_class_get_name(ec);
	size_t i;

	memset(out, 0, sizeof(*out));
	for (i = 0; name && i < sizeof(roles) / sizeof(roles[0]); i++) {
		if (strcmp(name, roles[i].name) == 0) {
			out->port = ds_field_ref_find_any(ec, "port");
			out->local_port = ds_field_ref_find_any(ec, "local_port");
			if (ds_field_ref_is_int(out->port) && ds_field_ref_is_int(out->local_port)) {
				out->role = roles[i].role;
			}
			return;
		}
	}
}

void sync_http_record(struct sync_iter *it, enum sync_http_role role, uint32_t port, uint32_t local,
		int host, int64_t ts)
{
	bool client_side = role == SYNC_HTTP_CLIENT_REQUEST || role == SYNC_HTTP_CLIENT_RESPONSE;
	bool send = role == SYNC_HTTP_CLIENT_REQUEST || role == SYNC_HTTP_SERVER_RESPONSE;
	struct http_key key = {
		.client_port = client_side ? local : port,
		.server_port = client_side ? port : local,
		.response = role == SYNC_HTTP_SERVER_RESPONSE || role == SYNC_HTTP_CLIENT_RESPONSE,
	};
	struct http_entry *e = g_hash_table_lookup(it->http, &key);
	struct http_stamp stamp = { host, ts };

	if (!e) {
		e = g_new0(struct http_entry, 1);
		e->key = key;
		e->sends = g_array_new(FALSE, FALSE, sizeof(struct http_stamp));
		e->recvs = g_array_new(FALSE, FALSE, sizeof(struct http_stamp));
		g_hash_table_insert(it->http, &e->key, e);
	}
	g_array_append_val(send ? e->sends : e->recvs, stamp);
}

void sync_http_add_pairs(struct sync_iter *it)
{
	GHashTableIter iter;
	gpointer value;

	g_hash_table_iter_init(&iter, it->http);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		const struct http_entry *e = value;
		guint i, n = MIN(e->sends->len, e->recvs->len);

		for (i = 0; i < n; i++) {
			const struct http_stamp *s = &g_array_index(e->sends, struct http_stamp, i);
			const struct http_stamp *r = &g_array_index(e->recvs, struct http_stamp, i);

			if (s->host != r->host) {
				sync_record_pair(it, SYNC_PAIR_HTTP, s->host, s->ts, r->host, r->ts);
			}
		}
	}
}
