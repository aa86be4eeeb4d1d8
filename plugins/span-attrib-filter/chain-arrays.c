/* SPDX-License-Identifier: MIT */
/*
 * The spans' `chain` arrays (struct ds_chain_entry, ~290 bytes each) are recycled through the chain context
 * instead of being allocated with every span and freed with it: a span takes an array that already has the
 * capacity of earlier chains, so neither the allocation of a large block nor the growth copies (realloc of
 * the entries as the walk appends them) happen once the first spans have been emitted.  Output unchanged:
 * an array is emptied when it is taken back.
 */
#include "chain.h"

/*
 * Arrays kept for reuse, and the longest chain whose array is kept (a longer one's is freed, as before): at
 * most 16 x 512 entries (~2.3 MB) stay allocated, whatever the trace's length.
 */
#define POOL_MAX 16
#define POOL_MAX_ENTRIES 512

GArray *ds_chain_array_take(struct ds_chain_ctx *ctx)
{
	if (ctx->free_chains && ctx->free_chains->len) {
		return g_ptr_array_steal_index_fast(ctx->free_chains, ctx->free_chains->len - 1);
	}
	return g_array_sized_new(FALSE, FALSE, sizeof(struct ds_chain_entry), 16);
}

void ds_chain_array_give(struct ds_chain_ctx *ctx, GArray *chain)
{
	if (!chain) {
		return;
	}
	if (ctx->memo.entries == chain) {
		ctx->memo.valid = false;	/* the walk it remembers is gone with its span */
		ctx->memo.entries = NULL;
	}
	if (!ctx->free_chains) {
		ctx->free_chains = g_ptr_array_new();
	}
	if (ctx->free_chains->len >= POOL_MAX || chain->len > POOL_MAX_ENTRIES) {
		g_array_free(chain, TRUE);
		return;
	}
	g_array_set_size(chain, 0);
	g_ptr_array_add(ctx->free_chains, chain);
}

void ds_chain_arrays_fini(struct ds_chain_ctx *ctx)
{
	guint i;

	if (!ctx->free_chains) {
		return;
	}
	for (i = 0; i < ctx->free_chains->len; i++) {
		g_array_free(g_ptr_array_index(ctx->free_chains, i), TRUE);
	}
	g_ptr_array_free(ctx->free_chains, TRUE);
	ctx->free_chains = NULL;
}
