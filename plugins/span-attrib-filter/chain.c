/* SPDX-License-Identifier: MIT */
/*
 * Chains (doc/critical-path.md): the context shared by every host's model and its index of the TCP segments
 * sent on every host.  The history the models keep is chain-history.c, the walk chain-walk.c.
 */
#include "chain.h"
#include "model-priv.h"

#include <string.h>
#include <xxhash.h>

struct ds_chain_ctx *ds_chain_ctx_create(unsigned int depth, int64_t window)
{
	struct ds_chain_ctx *ctx = g_new0(struct ds_chain_ctx, 1);

	ctx->depth = depth < 1 ? 1 : (depth > DS_CHAIN_MAX_DEPTH ? DS_CHAIN_MAX_DEPTH : depth);
	ctx->window = window > 0 ? window : 1;
	ctx->sends = g_array_sized_new(FALSE, FALSE, sizeof(struct ds_tcp_send), 256);
	ctx->send_index = g_hash_table_new(g_direct_hash, g_direct_equal);
	ctx->now = INT64_MIN;
	return ctx;
}

void ds_chain_ctx_destroy(struct ds_chain_ctx *ctx)
{
	if (!ctx) {
		return;
	}
	g_array_free(ctx->sends, TRUE);
	g_hash_table_destroy(ctx->send_index);
	ds_chain_net_fini(ctx);
	ds_chain_arrays_fini(ctx);
	g_free(ctx);
}

uint64_t ds_tcp_key_hash(const struct ds_tcp_key *key)
{
	uint32_t words[4] = {
		key->seq, key->ack_seq, key->flags,
		((uint32_t) key->source_port << 16) | key->dest_port,
	};

	return XXH64(words, sizeof(words), 0);
}

static void prune_sends(struct ds_chain_ctx *ctx)
{
	int64_t limit = ds_chain_window_limit(ctx, ctx->now);

	while (ctx->sends_head < ctx->sends->len) {
		struct ds_tcp_send *rec = &g_array_index(ctx->sends, struct ds_tcp_send, ctx->sends_head);
		gpointer key = GSIZE_TO_POINTER((gsize) rec->hash);

		if (rec->ts >= limit) {
			break;
		}
		if (GPOINTER_TO_SIZE(g_hash_table_lookup(ctx->send_index, key)) == rec->seq + 1) {
			g_hash_table_remove(ctx->send_index, key);
		}
		ctx->sends_head++;
	}
	if (ctx->sends_head >= DS_CHAIN_COMPACT_MIN && ctx->sends_head * 2 >= ctx->sends->len) {
		g_array_remove_range(ctx->sends, 0, ctx->sends_head);
		ctx->sends_base += ctx->sends_head;
		ctx->sends_head = 0;
	}
}

const struct ds_tcp_send *ds_chain_find_send(struct ds_chain_ctx *ctx, const struct ds_tcp_key *key)
{
	gsize value = GPOINTER_TO_SIZE(g_hash_table_lookup(ctx->send_index,
		GSIZE_TO_POINTER((gsize) ds_tcp_key_hash(key))));
	const struct ds_tcp_send *rec;

	if (!value) {
		return NULL;
	}
	rec = ds_chain_send_at(ctx, (uint64_t) value - 1);
	return rec && ds_tcp_key_equal(&rec->key, key) ? rec : NULL;
}

void ds_chain_add_send(struct ds_chain_ctx *ctx, struct ds_model *model, int64_t ts, int64_t tid,
		const struct ds_tcp_key *key)
{
	const struct ds_tcp_send *previous;
	struct ds_tcp_send rec;

	ds_chain_advance(ctx, ts);
	prune_sends(ctx);
	previous = ds_chain_find_send(ctx, key);
	memset(&rec, 0, sizeof(rec));
	rec.key = *key;
	rec.ts = ts;
	rec.model = model;
	rec.tid = tid;
	rec.count = previous ? previous->count + 1 : 1;
	rec.prev = previous ? previous->seq + 1 : 0;
	rec.seq = ctx->sends_base + ctx->sends->len;
	rec.hash = ds_tcp_key_hash(key);
	g_array_append_val(ctx->sends, rec);
	g_hash_table_insert(ctx->send_index, GSIZE_TO_POINTER((gsize) rec.hash), GSIZE_TO_POINTER((gsize) rec.seq + 1));
	ds_chain_net_sent(ctx, rec.hash, ts);
}

/* History kept by the model. */
