/* SPDX-License-Identifier: MIT */
/*
 * The explanation of a difference and the text outputs: ranked leaf causes,
 * `explain.txt`, the stdout summary and the folded stack files.
 */
#ifndef DEEPSPAN_DIFF_EXPLAIN_H
#define DEEPSPAN_DIFF_EXPLAIN_H

#include <stdbool.h>
#include <stdio.h>
#include <glib.h>

#include "aggregate.h"
#include "span-consumer/groups.h"

struct ds_explanation {
	GArray *ranked;		/* owned: uint32_t leaf frames, largest W_B − W_A first */
	GArray *gone;		/* owned: uint32_t frames present only in A (topmost), largest W_A first */
	GArray *added;		/* owned: uint32_t frames present only in B (topmost), largest W_B first */
	__int128 leaf_total;	/* Σ leaf numerators (over N_A·N_B) */
	__int128 latency_total;	/* numerator of the mean latency difference */
	bool exact;		/* critical-path mode and leaf_total == latency_total */
};

void ds_explain(const struct ds_aggregate *agg, struct ds_explanation *out);
void ds_explanation_fini(struct ds_explanation *explanation);

/* Share of `frame`'s difference in the latency difference, in percent. */
double ds_explain_share(const struct ds_aggregate *agg,
		const struct ds_explanation *explanation, uint32_t frame);

/* One cause line: `+182.0 ms (81%)  path > leaf`. */
void ds_explain_line(const struct ds_aggregate *agg,
		const struct ds_explanation *explanation, uint32_t frame, GString *out);

/*
 * The sentence of a cause inside a chain (doc/diff.md, "Chains in
 * explain.txt"): "27.0 ms (79%) blocked on futex held by mysqld/1289 (host
 * beta), which waited 24.1 ms for CPU 1 while compactor/991 ran", from the
 * depth-0 chain frame down to `frame`, each clause naming its heaviest
 * contributor.  Returns false (nothing appended) outside chains.
 */
bool ds_explain_sentence(const struct ds_aggregate *agg,
		const struct ds_explanation *explanation, uint32_t frame, GString *out);

/* Appends a chain note (sanitized) with its duration marks (\x01) replaced by `duration`. */
void ds_explain_clause(GString *out, const char *note, const char *duration);

/* Skew and truncation facts the outputs repeat. */
struct ds_input_facts {
	uint64_t spans;
	uint64_t requests;
	uint64_t truncated_requests;
	uint64_t reversed_spans;	/* end before begin (corrupt input) */
	uint64_t invalid_spans;		/* bounds out of range (span-store.h), reversed ones included */
	uint64_t invalid_requests;	/* requests with an invalid span: in no group */
	uint64_t invalid_chains;	/* chains breaking their invariants: their spans kept, without chain */
	const struct ds_strings *strings;	/* borrowed: the details of `deadlocks` and `stuck` */
	GHashTable *deadlocks;		/* borrowed: deadlock detail id -> spans (NULL = none) */
	GHashTable *stuck;		/* borrowed: still-blocked detail id -> spans of open requests */
	uint64_t cycle_spans;		/* spans in parent cycles, reachable from no root */
	uint64_t cycle_requests;	/* requests made only of parent cycles */
	uint64_t deep_requests;		/* deeper than DS_REQUEST_MAX_DEPTH: folded below it */
	uint64_t folded_spans;		/* spans below DS_REQUEST_MAX_DEPTH (folded into their ancestor) */
	uint64_t duplicate_spans;	/* span id seen twice in one trace */
	uint64_t late_spans;		/* arrived after their request was complete */
	uint64_t skewed_children;
	int64_t worst_skew;		/* ns */
	const char *worst_skew_where;	/* borrowed: "mysql: SQL SELECT on host db" or NULL */
};

/*
 * Appends what was left out of the groups and why ("3 requests with
 * truncated spans, 1 request with an invalid span ..."), listing only the
 * non-zero counts, joined by `separator`.  Returns false (nothing appended)
 * when nothing was left out.
 */
bool ds_facts_left_out(const struct ds_input_facts *facts, const char *separator,
		GString *out);

/* The whole `explain.txt` (`summary`: the short stdout form). */
void ds_explain_write(FILE *file, const struct ds_aggregate *agg,
		const struct ds_explanation *explanation,
		const struct ds_selection *selection, const struct ds_input_facts *facts,
		const char *mode_name, unsigned int top, bool summary);

/* `stack value` lines of `group`'s mean per request (integer ns). */
void ds_write_folded(FILE *file, const struct ds_aggregate *agg, enum ds_group group);

/* `stack A B` lines. */
void ds_write_diff_folded(FILE *file, const struct ds_aggregate *agg);

/* Own width of a frame in `group`: its sum minus its children's (>= 0). */
int64_t ds_frame_own(const struct ds_aggregate *agg, uint32_t frame,
		enum ds_group group);

#endif /* DEEPSPAN_DIFF_EXPLAIN_H */
