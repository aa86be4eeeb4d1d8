/* SPDX-License-Identifier: MIT */
/*
 * Chains in one host's pass (doc/scale.md, "Per-host analysis"): deepspan-report runs span-attrib on each
 * host's traces alone when no chain can leave the host.  A walk that would continue on another host (a wait
 * ended by a TCP segment not sent on this host) is not guessed: the first one is recorded and the filter
 * stops, and deepspan-report runs the hosts in one graph instead.  No allocation.
 */
#include "chain.h"
#include "model-priv.h"

#include <glib.h>

void ds_chain_set_local_only(struct ds_chain_ctx *ctx)
{
	if (ctx) {
		ctx->local_only = true;
	}
}

void ds_chain_cross_host_need(struct ds_chain_ctx *ctx, const struct ds_model *model, int64_t tid, int64_t ts,
		const char *what)
{
	if (!ctx->local_only || ctx->cross_host.needed) {
		return;
	}
	ctx->cross_host.needed = true;
	g_strlcpy(ctx->cross_host.host, model && model->host ? model->host : "-", sizeof(ctx->cross_host.host));
	ctx->cross_host.tid = tid;
	ctx->cross_host.ts = ts;
	g_strlcpy(ctx->cross_host.what, what, sizeof(ctx->cross_host.what));
}
