/* SPDX-License-Identifier: MIT */
/*
 * The network terminal of chains (doc/storage-network.md, "Network"): which send of a TCP segment a receive
 * matches (the last one at or before the receive: a retransmission replaces the lost first send), the first
 * send of the key (where a retransmission wait begins), segments received twice, and NET_RX wakeups on a host
 * that recorded no network events at all (`unknown`, not a guess).
 *
 * The sends of one key are linked from the newest (the index) to the oldest (`prev`); a key is rarely sent
 * more than twice, so the walks below are a few steps.  No allocation.
 */
#include "chain.h"
#include "model-priv.h"

#include <string.h>

const struct ds_tcp_send *ds_chain_send_at(const struct ds_chain_ctx *ctx, uint64_t seq)
{
	const struct ds_tcp_send *send;

	if (seq < ctx->sends_base + ctx->sends_head || seq >= ctx->sends_base + ctx->sends->len) {
		return NULL;
	}
	send = &g_array_index(ctx->sends, struct ds_tcp_send, seq - ctx->sends_base);
	return send->ts >= ds_chain_window_limit(ctx, ctx->now) ? send : NULL;
}

/* The previous send of the same key as `send`, NULL when none is kept. */
static const struct ds_tcp_send *send_prev(const struct ds_chain_ctx *ctx, const struct ds_tcp_send *send)
{
	const struct ds_tcp_send *prev = send->prev ? ds_chain_send_at(ctx, send->prev - 1) : NULL;

	return prev && prev->hash == send->hash ? prev : NULL;
}

const struct ds_tcp_send *ds_chain_send_before(struct ds_chain_ctx *ctx, const struct ds_tcp_key *key, int64_t ts)
{
	const struct ds_tcp_send *send = ds_chain_find_send(ctx, key);
	const struct ds_tcp_send *prev;

	while (send && send->ts > ts && (prev = send_prev(ctx, send))) {
		send = prev;
	}
	return send;
}

const struct ds_tcp_send *ds_chain_send_first(const struct ds_chain_ctx *ctx, const struct ds_tcp_send *send)
{
	const struct ds_tcp_send *prev;

	while (send && (prev = send_prev(ctx, send))) {
		send = prev;
	}
	return send;
}

/* A receive without a send yet. */
struct ds_early_rx {
	uint64_t hash;
	int64_t ts;
};

/* Drops the early receives older than the window behind `now`. */
static void prune_early_rx(struct ds_chain_ctx *ctx, int64_t now)
{
	int64_t limit = ds_chain_window_limit(ctx, now);

	while (ctx->early_rx_head < ctx->early_rx->len) {
		const struct ds_early_rx *rx = &g_array_index(ctx->early_rx, struct ds_early_rx, ctx->early_rx_head);

		if (rx->ts >= limit) {
			break;
		}
		g_hash_table_remove(ctx->early_rx_index, GSIZE_TO_POINTER((gsize) rx->hash));
		ctx->early_rx_head++;
	}
	if (ctx->early_rx_head >= 32 && ctx->early_rx_head * 2 >= ctx->early_rx->len) {
		g_array_remove_range(ctx->early_rx, 0, ctx->early_rx_head);
		ctx->early_rx_head = 0;
	}
}

static void remember_early_rx(struct ds_chain_ctx *ctx, const struct ds_tcp_key *key, int64_t ts)
{
	struct ds_early_rx rx = { ds_tcp_key_hash(key), ts };

	if (!ctx->early_rx) {
		ctx->early_rx = g_array_sized_new(FALSE, FALSE, sizeof(struct ds_early_rx), 64);
		ctx->early_rx_index = g_hash_table_new(g_direct_hash, g_direct_equal);
	}
	prune_early_rx(ctx, ts);
	g_array_append_val(ctx->early_rx, rx);
	g_hash_table_insert(ctx->early_rx_index, GSIZE_TO_POINTER((gsize) rx.hash), GINT_TO_POINTER(1));
}

void ds_chain_net_sent(struct ds_chain_ctx *ctx, uint64_t hash, int64_t ts)
{
	if (!ctx->early_rx_index || !g_hash_table_size(ctx->early_rx_index)) {
		return;
	}
	prune_early_rx(ctx, ts);
	if (g_hash_table_remove(ctx->early_rx_index, GSIZE_TO_POINTER((gsize) hash))) {
		ctx->counters.received_before_sent++;
	}
}

void ds_chain_net_sent_in_irq(struct ds_chain_ctx *ctx, const char *name, bool soft)
{
	struct ds_tcp_send *last;

	if (ctx->sends_head >= ctx->sends->len) {
		return;
	}
	last = &g_array_index(ctx->sends, struct ds_tcp_send, ctx->sends->len - 1);
	last->irq = name;
	last->irq_soft = soft;
}

void ds_chain_net_fini(struct ds_chain_ctx *ctx)
{
	if (ctx->early_rx) {
		g_array_free(ctx->early_rx, TRUE);
		g_hash_table_destroy(ctx->early_rx_index);
		ctx->early_rx = NULL;
		ctx->early_rx_index = NULL;
	}
}

void ds_chain_net_receive(struct ds_chain_ctx *ctx, const struct ds_tcp_key *key, int64_t ts)
{
	/* receives are counted per key, on its first send: a copy of a retransmission is a second receive */
	struct ds_tcp_send *first = (struct ds_tcp_send *) ds_chain_send_first(ctx,
		ds_chain_send_before(ctx, key, ts));

	if (!first) {
		remember_early_rx(ctx, key, ts);
		return;
	}
	first->receives++;
	if (first->receives == 2) {
		ctx->counters.received_twice++;
	}
}

/*
 * The one place that decides "this host recorded no network events" (H2's per-host missing-event-family
 * report can absorb it): a NET_RX wakeup on a host where neither net_dev_queue nor net_if_receive_skb was seen.
 */
static bool net_events_missing(const struct ds_model *model)
{
	return !model->net_seen;
}

void ds_chain_net_wake(struct ds_model *model, struct ds_wake *w)
{
	const struct ds_tcp_send *send;

	if (w->kind == DS_WAKE_SOFTIRQ) {
		if (w->name && net_events_missing(model) && strcmp(w->name, "NET_RX") == 0) {
			w->kind = DS_WAKE_NET;
			w->no_net_events = true;
			model->chain->counters.no_net_events++;
			if (!model->chain->counters.first_no_net_host[0]) {
				g_strlcpy(model->chain->counters.first_no_net_host, model->host ? model->host : "-",
					sizeof(model->chain->counters.first_no_net_host));
			}
		}
		return;
	}
	send = ds_chain_send_before(model->chain, &w->key, w->rx_ts);
	w->send_seq = send ? send->seq + 1 : 0;
	if (!send) {
		model->chain->counters.no_matching_send++;
	}
	w->received_twice = send && ds_chain_send_first(model->chain, send)->receives > 1;
}
