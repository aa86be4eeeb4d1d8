/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the sinks' cores (plugins/span-consumer/, plugins/diff-sink/,
 * plugins/metrics-sink/): request trees, critical path on
 * hand-made trees (sequential, parallel, async child outliving its parent,
 * child starting before its parent on a skewed host, nesting), exact union
 * self time, state attribution, aggregation and difference on groups with
 * known per-path means, colour mapping, groups, percentiles, formatting.
 */
#include "unit.h"

#include <math.h>
#include <stdlib.h>

#include "aggregate.h"
#include "attribution-record.h"
#include "attribution.h"
#include "colour.h"
#include "duration-list.h"
#include "explain.h"
#include "groups.h"
#include "metrics-build.h"
#include "request-record.h"
#include "request-stream.h"
#include "request-tree.h"
#include "sanitize.h"
#include "span-store.h"

static struct ds_strings strings;	/* the store's names */
static struct ds_span_store store;

static void reset_store(void)
{
	ds_span_store_fini(&store);
	ds_strings_fini(&strings);
	ds_strings_init(&strings);
	ds_span_store_init(&store, &strings);
}

/* A span of trace `trace` in `target`; all its time is User unless segments are added next. */
static uint32_t add_span_to(struct ds_span_store *target, uint64_t trace, uint64_t id,
		uint64_t parent, const char *service, const char *host, int64_t begin, int64_t end)
{
	struct ds_span span = { 0 };

	span.trace_id_low = trace;
	span.span_id = id;
	span.parent_span_id = parent;
	span.service = ds_strings_intern(target->strings, service);
	span.operation = ds_strings_intern(target->strings, "op");
	span.host = ds_strings_intern(target->strings, host);
	span.begin = begin;
	span.end = end;
	span.states[DS_STATE_USER] = (uint64_t) (end - begin);
	span.parent = DS_NO_SPAN;
	span.request = DS_NO_SPAN;
	return ds_store_append_span(target, &span);
}

static uint32_t add_span(uint64_t trace, uint64_t id, uint64_t parent, const char *service,
		const char *host, int64_t begin, int64_t end)
{
	return add_span_to(&store, trace, id, parent, service, host, begin, end);
}

/* Appends a segment to the last span (segments must follow their span). */
static void add_segment(int64_t begin, int64_t end, unsigned int state, const char *detail)
{
	struct ds_span *span = ds_store_span(&store, store.span_count - 1);
	struct ds_segment *run;
	struct ds_wide_segment segment = {
		.begin = begin,
		.end = end,
		.detail = ds_strings_intern(store.strings, detail),
		.state = (uint8_t) state,
	};

	if (span->segment_count == 0) {
		memset(span->states, 0, sizeof(span->states));
	}
	span->states[state] += (uint64_t) (end - begin);
	/* A new run with room for one more (the arena never grows a run in place). */
	run = ds_arena_alloc(&store.segments, span->segment_count + 1);
	if (span->segment_count) {
		memcpy(run, span->segments, span->segment_count * sizeof(*run));
	}
	ds_segment_pack(span->begin, span->end, &segment, &run[span->segment_count++]);
	span->segments = run;
}

static int64_t sum_of(const struct ds_aggregate *agg, const char *path, unsigned int group)
{
	GString *text = g_string_new(NULL);
	int64_t result = -1;
	uint32_t i;

	for (i = 1; i < agg->frames->len; i++) {
		g_string_truncate(text, 0);
		ds_frame_path(agg, i, " > ", text);
		if (strcmp(text->str, path) == 0) {
			result = ds_frame_at(agg, i)->sum[group];
			break;
		}
	}
	g_string_free(text, TRUE);
	return result;
}

/* Builds the trees and aggregates every request into group A in `mode`. */
static void aggregate_all(struct ds_requests *requests, struct ds_aggregate *agg,
		enum ds_mode mode)
{
	uint32_t i;

	ds_requests_build(requests, &store, 5000);
	ds_aggregate_init(agg, store.strings, mode);
	for (i = 0; i < requests->requests->len; i++) {
		ds_aggregate_add(agg, &store, requests, i, DS_GROUP_A);
	}
	ds_aggregate_finish(agg);
}

static void done(struct ds_requests *requests, struct ds_aggregate *agg)
{
	ds_aggregate_fini(agg);
	ds_requests_fini(requests);
}

static void test_sequential(void)
{
	struct ds_requests r;
	struct ds_aggregate agg;

	reset_store();
	add_span(1, 1, 0, "root", "h", 0, 100);
	add_span(1, 2, 1, "a", "h", 10, 40);
	add_span(1, 3, 1, "b", "h", 50, 90);
	aggregate_all(&r, &agg, DS_MODE_CRITICAL_PATH);
	UNIT_EQ_INT(sum_of(&agg, "root: op", 0), 100, "sequential: root width = latency");
	UNIT_EQ_INT(sum_of(&agg, "root: op > [User]", 0), 30, "sequential: root's own gaps");
	UNIT_EQ_INT(sum_of(&agg, "root: op > a: op", 0), 30, "sequential: first child");
	UNIT_EQ_INT(sum_of(&agg, "root: op > b: op > [User]", 0), 40, "sequential: second child");
	done(&r, &agg);
}

static void test_parallel(void)
{
	struct ds_requests r;
	struct ds_aggregate agg;

	reset_store();
	add_span(1, 1, 0, "root", "h", 0, 100);
	add_span(1, 2, 1, "a", "h", 10, 80);
	add_span(1, 3, 1, "b", "h", 20, 60);
	aggregate_all(&r, &agg, DS_MODE_CRITICAL_PATH);
	UNIT_EQ_INT(sum_of(&agg, "root: op > [User]", 0), 30, "parallel: root own time");
	UNIT_EQ_INT(sum_of(&agg, "root: op > a: op", 0), 70, "parallel: last-finishing child on path");
	UNIT_EQ_INT(sum_of(&agg, "root: op > b: op", 0), -1, "parallel: hidden child off the path");
	done(&r, &agg);
}

static void test_async_child(void)
{
	struct ds_requests r;
	struct ds_aggregate agg;

	reset_store();
	add_span(1, 1, 0, "root", "h", 0, 100);
	add_span(1, 2, 1, "a", "h", 10, 40);
	add_span(1, 3, 1, "async", "h", 50, 150);
	aggregate_all(&r, &agg, DS_MODE_CRITICAL_PATH);
	UNIT_EQ_INT(ds_request_at(&r, 0)->span_count, 3, "async: child kept in the request");
	UNIT_EQ_INT(sum_of(&agg, "root: op", 0), 100, "async: root width = root latency");
	UNIT_EQ_INT(sum_of(&agg, "root: op > [User]", 0), 70, "async: root own time");
	UNIT_EQ_INT(sum_of(&agg, "root: op > async: op", 0), -1, "async: outliving child off the path");
	done(&r, &agg);
	aggregate_all(&r, &agg, DS_MODE_INCLUSIVE);
	UNIT_EQ_INT(sum_of(&agg, "root: op > async: op", 0), 100, "async: inclusive keeps its duration");
	done(&r, &agg);
}

static void test_skewed_child(void)
{
	struct ds_requests r;
	struct ds_aggregate agg;

	reset_store();
	add_span(1, 1, 0, "root", "front", 0, 100);
	add_span(1, 2, 1, "early", "back", -20000, 60);
	aggregate_all(&r, &agg, DS_MODE_CRITICAL_PATH);
	UNIT_EQ_INT(sum_of(&agg, "root: op > early: op", 0), 60, "skew: child clipped to the parent");
	UNIT_EQ_INT(sum_of(&agg, "root: op > [User]", 0), 40, "skew: root own time");
	UNIT_EQ_INT(sum_of(&agg, "root: op", 0), 100, "skew: root width = latency");
	UNIT_EQ_INT(r.skewed_children, 1, "skew: one cross-host child outside its parent");
	UNIT_EQ_INT(r.worst_skew, 20000, "skew: worst offset");
	done(&r, &agg);
}

static void test_nested(void)
{
	struct ds_requests r;
	struct ds_aggregate agg;

	reset_store();
	add_span(1, 1, 0, "root", "h", 0, 100);
	add_span(1, 2, 1, "a", "h", 10, 90);
	add_span(1, 3, 2, "b", "h", 20, 50);
	add_span(1, 4, 2, "c", "h", 40, 80);
	aggregate_all(&r, &agg, DS_MODE_CRITICAL_PATH);
	UNIT_EQ_INT(sum_of(&agg, "root: op > [User]", 0), 20, "nested: root own");
	UNIT_EQ_INT(sum_of(&agg, "root: op > a: op > [User]", 0), 40, "nested: a own (gaps)");
	UNIT_EQ_INT(sum_of(&agg, "root: op > a: op > c: op", 0), 40, "nested: c on path");
	UNIT_EQ_INT(sum_of(&agg, "root: op > a: op > b: op", 0), -1, "nested: b overlapped by c");
	done(&r, &agg);
	aggregate_all(&r, &agg, DS_MODE_SELF);
	/* a: [10,90] minus union([20,50],[40,80]) = 20. */
	UNIT_EQ_INT(sum_of(&agg, "root: op > a: op > [User]", 0), 20, "self: a minus union");
	UNIT_EQ_INT(sum_of(&agg, "root: op > [User]", 0), 20, "self: root minus a");
	UNIT_EQ_INT(sum_of(&agg, "root: op > a: op > b: op > [User]", 0), 30, "self: leaf b");
	done(&r, &agg);
}

static void test_union_self(void)
{
	struct ds_requests r;
	GArray *gaps = g_array_new(FALSE, FALSE, sizeof(struct ds_interval));
	const struct ds_interval *g;
	int64_t self;

	reset_store();
	add_span(1, 1, 0, "root", "h", 0, 100);
	add_span(1, 2, 1, "a", "h", 10, 30);
	add_span(1, 3, 1, "b", "h", 20, 50);
	add_span(1, 4, 1, "c", "h", 70, 80);
	add_span(1, 5, 1, "d", "h", 95, 130);
	ds_requests_build(&r, &store, 5000);
	self = ds_span_self_intervals(&store, &r, ds_store_span(&store, 0), gaps);
	g = (const struct ds_interval *) gaps->data;
	UNIT_EQ_INT(self, 45, "union: self time is exact (not pairwise)");
	UNIT_EQ_INT(gaps->len, 3, "union: three self intervals");
	UNIT_CHECK(gaps->len == 3 && g[0].begin == 0 && g[0].end == 10 && g[1].begin == 50 &&
		g[1].end == 70 && g[2].begin == 80 && g[2].end == 95, "union: interval bounds");
	UNIT_EQ_INT(ds_request_at(&r, 0)->self_time, 45, "request self time");
	ds_requests_fini(&r);
	g_array_free(gaps, TRUE);
}

static void test_segments(void)
{
	struct ds_requests r;
	struct ds_aggregate agg;

	reset_store();
	add_span(1, 1, 0, "root", "h", 0, 100);
	add_segment(0, 30, DS_STATE_USER, "");
	add_segment(30, 60, DS_STATE_BLOCKED, "futex \xe2\x86\x90 mysqld/4242");
	add_segment(60, 90, DS_STATE_WAIT_CPU, "");
	add_span(1, 2, 1, "a", "h", 40, 70);
	aggregate_all(&r, &agg, DS_MODE_CRITICAL_PATH);
	UNIT_EQ_INT(sum_of(&agg, "root: op > [Waited CPU]", 0), 20, "segments: wait_cpu in gap");
	UNIT_EQ_INT(sum_of(&agg, "root: op > [Unknown]", 0), 10, "segments: uncovered time unknown");
	UNIT_EQ_INT(sum_of(&agg, "root: op > [User]", 0), 30, "segments: user before child");
	UNIT_EQ_INT(sum_of(&agg, "root: op > [Waited blocked] futex \xe2\x86\x90 mysqld/4242", 0), 10,
		"segments: blocked with detail");
	UNIT_EQ_INT(ds_frame_at(&agg, 0)->state_sum[0][DS_STATE_USER], 60,
		"per-state sums include the child");
	done(&r, &agg);
}

static void test_proportional(void)
{
	struct ds_requests r;
	struct ds_aggregate agg;
	struct ds_span *span;

	reset_store();
	add_span(1, 1, 0, "root", "h", 0, 100);
	add_span(1, 2, 1, "a", "h", 33, 100);
	span = ds_store_span(&store, 0);
	span->states[DS_STATE_USER] = 50;
	span->states[DS_STATE_SYSCALL] = 30;
	span->states[DS_STATE_BLOCKED] = 20;
	aggregate_all(&r, &agg, DS_MODE_CRITICAL_PATH);
	/* 33 split 50:30:20 = 16.5, 9.9, 6.6 -> largest remainders: 16, 10, 7. */
	UNIT_EQ_INT(sum_of(&agg, "root: op > [User]", 0), 16, "no segments: user share");
	UNIT_EQ_INT(sum_of(&agg, "root: op > [System call]", 0), 10, "no segments: syscall share");
	UNIT_EQ_INT(sum_of(&agg, "root: op > [Waited blocked]", 0), 7, "no segments: blocked share");
	done(&r, &agg);
}

static void test_tree_building(void)
{
	struct ds_requests r;

	reset_store();
	add_span(7, 1, 0, "root", "h", 0, 100);
	add_span(7, 2, 99, "orphan", "h", 10, 20);	/* parent never seen */
	add_span(8, 1, 0, "other", "h", 0, 50);
	ds_store_span(&store, 2)->truncated = true;
	add_span(9, 5, 6, "cycle-a", "h", 0, 10);
	add_span(9, 6, 5, "cycle-b", "h", 0, 10);
	ds_requests_build(&r, &store, 5000);
	UNIT_EQ_INT(r.requests->len, 2, "trees: a parent cycle makes no request");
	UNIT_EQ_INT(ds_request_at(&r, 0)->root_count, 2, "trees: missing parent -> root");
	UNIT_EQ_INT(ds_request_at(&r, 0)->root, 0, "trees: main root is the longest");
	UNIT_EQ_INT(ds_request_at(&r, 0)->latency, 100, "trees: latency of the main root");
	UNIT_CHECK(ds_request_at(&r, 1)->truncated, "trees: truncated request flagged");
	UNIT_EQ_INT(r.truncated_requests, 1, "trees: truncated requests counted");
	ds_requests_fini(&r);
}

/*
 * Two groups with known per-path means (in the spirit of Trace Compass's
 * execution-comparison vectors): A = {X[0,10] > Y[2,6]; X[0,20] > Y[5,15]; X[0,12]},
 * B = {X[0,30] > Y[0,25], Z[25,28]}.
 */
static void test_diff_vectors(void)
{
	struct ds_requests r;
	struct ds_aggregate agg;
	struct ds_explanation e;
	__int128 leaves, latency;
	uint32_t i;
	bool is_new;
	const struct ds_frame *frame;

	reset_store();
	add_span(1, 1, 0, "X", "h", 0, 10);
	add_span(1, 2, 1, "Y", "h", 2, 6);
	add_span(2, 1, 0, "X", "h", 0, 20);
	add_span(2, 2, 1, "Y", "h", 5, 15);
	add_span(3, 1, 0, "X", "h", 0, 12);
	add_span(4, 1, 0, "X", "h", 0, 30);
	add_span(4, 2, 1, "Y", "h", 0, 25);
	add_span(4, 3, 1, "Z", "h", 25, 28);
	ds_requests_build(&r, &store, 5000);
	ds_aggregate_init(&agg, store.strings, DS_MODE_CRITICAL_PATH);
	for (i = 0; i < r.requests->len; i++) {
		ds_aggregate_add(&agg, &store, &r, i, ds_request_at(&r, i)->trace_id_low == 4 ?
			DS_GROUP_B : DS_GROUP_A);
	}
	ds_aggregate_finish(&agg);
	UNIT_EQ_INT(agg.requests[DS_GROUP_A], 3, "vectors: N_A");
	UNIT_EQ_INT(sum_of(&agg, "X: op > [User]", DS_GROUP_A), 6 + 10 + 12, "vectors: A X own sum");
	UNIT_EQ_INT(sum_of(&agg, "X: op > Y: op", DS_GROUP_A), 14, "vectors: A Y sum");
	UNIT_EQ_INT(sum_of(&agg, "X: op > [User]", DS_GROUP_B), 2, "vectors: B X own");
	UNIT_EQ_INT(sum_of(&agg, "X: op > Z: op", DS_GROUP_B), 3, "vectors: B Z (new)");
	for (i = 1; i < agg.frames->len; i++) {
		GString *p = g_string_new(NULL);

		frame = ds_frame_at(&agg, i);
		ds_frame_path(&agg, i, " > ", p);
		if (strcmp(p->str, "X: op > Y: op") == 0) {
			/* W_A = 14/3, W_B = 25: d = (25 - 14/3) / (14/3). */
			UNIT_NEAR(ds_frame_relative(&agg, frame, &is_new), (25.0 - 14.0 / 3) / (14.0 / 3),
				1e-12, "vectors: d(Y)");
			UNIT_CHECK(ds_frame_delta_numerator(&agg, frame) == 25 * 3 - 14,
				"vectors: exact numerator of W_B - W_A");
			UNIT_EQ_INT(frame->count[DS_GROUP_A], 2, "vectors: Y count in A");
		}
		if (strcmp(p->str, "X: op > Z: op") == 0) {
			ds_frame_relative(&agg, frame, &is_new);
			UNIT_CHECK(is_new, "vectors: Z is new in B");
		}
		g_string_free(p, TRUE);
	}
	UNIT_CHECK(ds_aggregate_check_exact(&agg, &leaves, &latency),
		"vectors: leaves sum exactly to the latency difference");
	UNIT_CHECK(latency == 30 * 3 - 42 * 1, "vectors: latency difference numerator");
	UNIT_NEAR(ds_aggregate_mean_latency(&agg, DS_GROUP_A), 14.0, 1e-12, "vectors: mean latency A");
	ds_explain(&agg, &e);
	UNIT_CHECK(e.exact, "vectors: explanation exact");
	{
		GString *line = g_string_new(NULL);

		ds_explain_line(&agg, &e, g_array_index(e.ranked, uint32_t, 0), line);
		UNIT_EQ_STR(line->str, "+20 ns (127%)  X: op > Y: op > [User]",
			"vectors: top cause line with share");
		g_string_free(line, TRUE);
	}
	UNIT_EQ_INT(e.added->len, 1, "vectors: one topmost new frame (Z)");
	ds_explanation_fini(&e);
	done(&r, &agg);
}

static void test_colours(void)
{
	struct ds_rgb c;

	c = ds_diff_colour(0.03, false, 0.05, 1.0);
	UNIT_CHECK(c.r == 255 && c.g == 255 && c.b == 255, "colour: inside the white band");
	c = ds_diff_colour(-0.05, false, 0.05, 1.0);
	UNIT_CHECK(c.r == 255 && c.g == 255 && c.b == 255, "colour: band edge is white");
	c = ds_diff_colour(0.5, false, 0.0, 1.0);
	UNIT_CHECK(c.r == 255 && c.g == 128 && c.b == 128, "colour: half-way red");
	c = ds_diff_colour(-0.5, false, 0.0, 1.0);
	UNIT_CHECK(c.r == 128 && c.g == 128 && c.b == 255, "colour: half-way blue");
	c = ds_diff_colour(3.0, false, 0.05, 1.0);
	UNIT_CHECK(c.r == 255 && c.g == 0 && c.b == 0, "colour: saturated red");
	c = ds_diff_colour(-0.99, false, 0.05, 0.5);
	UNIT_CHECK(c.r == 0 && c.g == 0 && c.b == 255, "colour: saturated blue");
	c = ds_diff_colour(0.0, true, 0.05, 1.0);
	UNIT_CHECK(c.r == 255 && c.g == 0 && c.b == 0, "colour: new frames pure red");
}

static void test_groups_default(void)
{
	static const unsigned int sizes[] = { 1, 7, 100, 250 };
	static const unsigned int expect_a[] = { 1, 4, 50, 125 };
	static const unsigned int expect_b[] = { 1, 1, 1, 3 };
	struct ds_group_spec none;
	unsigned int t, i;

	memset(&none, 0, sizeof(none));
	none.min_duration = none.max_duration = none.min_self = none.max_self = DS_NO_LIMIT;
	none.begin = none.end = DS_NO_LIMIT;
	for (t = 0; t < G_N_ELEMENTS(sizes); t++) {
		struct ds_requests r;
		struct ds_selection sel;
		GArray *records = g_array_new(FALSE, FALSE, sizeof(struct ds_request_record));
		char what[64];

		reset_store();
		for (i = 0; i < sizes[t]; i++) {
			add_span(i + 1, 1, 0, "root", "h", 0, 1000 + (int64_t) (i * 7919 % sizes[t]));
		}
		ds_requests_build(&r, &store, 5000);
		for (i = 0; i < r.requests->len; i++) {
			struct ds_request_record record;

			ds_request_record_make(&store, &r, i, &record);
			g_array_append_val(records, record);
		}
		ds_select_groups(store.strings, records, 0, &none, &none, false, &sel);
		snprintf(what, sizeof(what), "default groups of %u: A at or under the median", sizes[t]);
		UNIT_EQ_INT(sel.members[0]->len, expect_a[t], what);
		snprintf(what, sizeof(what), "default groups of %u: B slowest 1%%, at least one", sizes[t]);
		UNIT_EQ_INT(sel.members[1]->len, expect_b[t], what);
		if (sel.members[1]->len) {
			UNIT_EQ_INT(ds_record_at(records, g_array_index(sel.members[1], uint32_t,
				sel.members[1]->len - 1))->latency, 1000 + sizes[t] - 1,
				"default groups: B holds the slowest");
		}
		ds_selection_fini(&sel);
		ds_requests_fini(&r);
		g_array_free(records, TRUE);
	}
}

static void test_percentile_and_format(void)
{
	static const int64_t values[] = { 10, 20, 30, 40, 50, 60, 70, 80, 90, 100 };
	char buf[32];

	UNIT_EQ_INT(ds_percentile(values, 10, 50), 50, "p50 nearest rank");
	UNIT_EQ_INT(ds_percentile(values, 10, 95), 100, "p95 nearest rank");
	UNIT_EQ_INT(ds_percentile(values, 10, 0), 10, "p0 is the minimum");
	UNIT_EQ_INT(ds_percentile(values, 1, 99), 10, "one value");
	ds_format_duration(182.04e6, true, buf, sizeof(buf));
	UNIT_EQ_STR(buf, "+182.0 ms", "format ms");
	ds_format_duration(-850, true, buf, sizeof(buf));
	UNIT_EQ_STR(buf, "-850 ns", "format ns");
	ds_format_duration(1.5e9, false, buf, sizeof(buf));
	UNIT_EQ_STR(buf, "1.50 s", "format s");
}

/* The arena: runs are contiguous, earlier runs never move, a run larger than a block gets its own. */
static void test_arena(void)
{
	struct ds_arena arena;
	uint64_t *first, *second, *big, *after;
	uint32_t i;
	bool intact = true;

	ds_arena_init(&arena, sizeof(uint64_t));
	UNIT_CHECK(ds_arena_alloc(&arena, 0) == NULL, "arena: an empty run is NULL");
	first = ds_arena_alloc(&arena, 3);
	for (i = 0; i < 3; i++) {
		first[i] = 100 + i;
	}
	second = ds_arena_alloc(&arena, 2);
	UNIT_CHECK(second == first + 3, "arena: runs follow each other in a block");
	big = ds_arena_alloc(&arena, 1u << 20);	/* 8 MB: more than a block */
	big[(1u << 20) - 1] = 7;
	after = ds_arena_alloc(&arena, 1);
	UNIT_CHECK(after == second + 2, "arena: a run of its own keeps the block's free space");
	for (i = 0; i < 200000; i++) {
		*(uint64_t *) ds_arena_alloc(&arena, 1) = i;
	}
	for (i = 0; i < 3; i++) {
		intact = intact && first[i] == 100 + i;
	}
	UNIT_CHECK(intact && big[(1u << 20) - 1] == 7, "arena: earlier runs never move");
	UNIT_EQ_UINT(arena.used, 3 + 2 + (1u << 20) + 1 + 200000, "arena: elements counted");
	ds_arena_fini(&arena);
}

/* Spans in chunks: indices across chunk boundaries address the right span. */
static void test_span_chunks(void)
{
	uint32_t i, n = 3 * DS_SPAN_CHUNK + 5;
	bool ok = true;

	reset_store();
	for (i = 0; i < n; i++) {
		ok = ok && add_span(i, i + 1, 0, "s", "h", i, i + 10) == i;
	}
	for (i = 0; i < n; i++) {
		const struct ds_span *span = ds_store_span(&store, i);

		ok = ok && span->trace_id_low == i && span->begin == (int64_t) i;
	}
	UNIT_CHECK(ok, "span chunks: indices returned, every span read back");
	UNIT_EQ_UINT(store.span_count, n, "span chunks: count");
	reset_store();
}

/* Packed segments: offsets into the span, clipped to it; state and detail kept. */
static void test_segment_packing(void)
{
	const int64_t base = INT64_C(1700000000000000000);
	struct ds_span span = { .begin = base, .end = base + INT64_C(5000000000000) };
	struct ds_wide_segment inside = { base + 7, base + INT64_C(4999999999999), 12345, DS_STATE_BLOCKED };
	struct ds_wide_segment before = { base - 50, base + 3, DS_SEGMENT_MAX_DETAIL, DS_STATE_UNKNOWN };
	struct ds_wide_segment after = { span.end + 1, INT64_MAX, 0, DS_STATE_USER };
	struct ds_wide_segment huge_detail = { base, base + 1, DS_SEGMENT_MAX_DETAIL + 1, DS_STATE_USER };
	struct ds_span very_long = { .begin = 0, .end = INT64_MAX };
	struct ds_wide_segment far = { 0, INT64_MAX, 1, DS_STATE_USER };
	struct ds_segment packed;

	UNIT_EQ_UINT(sizeof(struct ds_segment), 16, "packed segment: 16 bytes");
	ds_segment_pack(span.begin, span.end, &inside, &packed);
	UNIT_EQ_INT(ds_segment_begin(&span, &packed), base + 7, "packed: begin beyond 32 bits of offset");
	UNIT_EQ_INT(ds_segment_end(&span, &packed), base + INT64_C(4999999999999), "packed: end");
	UNIT_EQ_UINT(ds_segment_state(&packed), DS_STATE_BLOCKED, "packed: state");
	UNIT_EQ_UINT(ds_segment_detail(&packed), 12345, "packed: detail");
	ds_segment_pack(span.begin, span.end, &before, &packed);
	UNIT_EQ_INT(ds_segment_begin(&span, &packed), base, "packed: begin clipped to the span");
	UNIT_EQ_INT(ds_segment_end(&span, &packed), base + 3, "packed: end inside");
	UNIT_EQ_UINT(ds_segment_detail(&packed), DS_SEGMENT_MAX_DETAIL, "packed: largest detail id");
	ds_segment_pack(span.begin, span.end, &after, &packed);
	UNIT_EQ_INT(ds_segment_begin(&span, &packed), span.end, "packed: after the span: empty at its end");
	UNIT_EQ_INT(ds_segment_end(&span, &packed), span.end, "packed: end clipped to the span");
	ds_segment_pack(span.begin, span.end, &huge_detail, &packed);
	UNIT_EQ_UINT(ds_segment_detail(&packed), 0, "packed: a detail id beyond 29 bits is dropped");
	ds_segment_pack(very_long.begin, very_long.end, &far, &packed);
	UNIT_EQ_INT(ds_segment_end(&very_long, &packed), DS_SEGMENT_MAX_OFFSET,
		"packed: offsets saturate at 48 bits");
}

/* Children listed by index: "<child ids in list order>". */
static void children_of(const struct ds_requests *r, uint32_t span_index, GString *out)
{
	const struct ds_span *span = ds_store_span(&store, span_index);
	uint32_t c;

	g_string_truncate(out, 0);
	for (c = 0; c < span->child_count; c++) {
		g_string_append_printf(out, "%" PRIu64 " ",
			ds_store_span(&store, ds_span_children(r, span)[c])->span_id);
	}
}

/*
 * A child on a skewed host begins before its parent: the parent's children
 * must still be counted (they were once reset after the child counted
 * itself, and the child overwrote a sibling's list).
 */
static void test_skew_order_tree(void)
{
	struct ds_requests r;
	GString *text = g_string_new(NULL);
	uint32_t root, a, c;

	reset_store();
	root = add_span(1, 1, 0, "root", "h1", 0, 100);
	a = add_span(1, 2, 1, "a", "h1", 10, 50);
	add_span(1, 3, 2, "b", "h2", -30, 40);
	c = add_span(1, 4, 1, "c", "h1", 60, 90);
	add_span(1, 5, 4, "d", "h1", 65, 80);
	add_span(1, 6, 4, "e", "h2", -40, 85);
	ds_requests_build(&r, &store, 5000);
	children_of(&r, root, text);
	UNIT_EQ_STR(text->str, "4 2 ", "skew order: root's children, latest end first");
	children_of(&r, a, text);
	UNIT_EQ_STR(text->str, "3 ", "skew order: a child beginning before its parent is listed");
	children_of(&r, c, text);
	UNIT_EQ_STR(text->str, "6 5 ", "skew order: siblings' lists are not overwritten");
	ds_requests_fini(&r);

	/*
	 * The same with a child beginning at its parent's very start: spans are
	 * stored by end, so the child comes first among equal begins (Node.js
	 * captures: an event-loop-busy span starts when its client span does).
	 */
	reset_store();
	add_span(2, 3, 2, "busy", "h1", 10, 20);
	add_span(2, 4, 2, "server", "h1", 12, 40);
	add_span(2, 5, 4, "inner", "h1", 15, 30);
	a = add_span(2, 2, 1, "client", "h1", 10, 45);
	root = add_span(2, 1, 0, "root", "h1", 0, 50);
	ds_requests_build(&r, &store, 5000);
	children_of(&r, a, text);
	UNIT_EQ_STR(text->str, "4 3 ", "equal begins: the parent keeps both children");
	children_of(&r, root, text);
	UNIT_EQ_STR(text->str, "2 ", "equal begins: the root keeps its child");
	ds_requests_fini(&r);
	g_string_free(text, TRUE);
}

/* The aggregate of recorded attributions equals the aggregate of the trees. */
static void test_record_replay(void)
{
	static const char *const modes[] = { "critical-path", "inclusive", "self" };
	unsigned int m;

	reset_store();
	add_span(1, 1, 0, "root", "h", 0, 100);
	add_segment(0, 30, DS_STATE_USER, "");
	add_segment(30, 60, DS_STATE_BLOCKED, "futex");
	add_segment(60, 100, DS_STATE_WAIT_CPU, "");
	add_span(1, 2, 1, "db", "h", 10, 40);
	add_span(1, 3, 2, "disk", "h", 15, 35);
	add_span(1, 4, 1, "async", "h", 50, 140);
	add_span(2, 1, 0, "root", "h", 0, 80);
	add_span(2, 2, 1, "db", "h", 5, 70);
	add_segment(5, 70, DS_STATE_SYSCALL, "read");
	for (m = 0; m < G_N_ELEMENTS(modes); m++) {
		struct ds_requests r;
		struct ds_aggregate direct, replayed;
		GArray *entries = g_array_new(FALSE, FALSE, sizeof(struct ds_attribution_entry));
		bool same = true;
		uint32_t i;
		char what[80];

		ds_requests_build(&r, &store, 5000);
		ds_aggregate_init(&direct, store.strings, (enum ds_mode) m);
		ds_aggregate_init(&replayed, store.strings, (enum ds_mode) m);
		for (i = 0; i < r.requests->len; i++) {
			enum ds_group g = i ? DS_GROUP_B : DS_GROUP_A;

			ds_aggregate_add(&direct, &store, &r, i, g);
			g_array_set_size(entries, 0);
			ds_attribution_record(&store, &r, i, (enum ds_mode) m, entries);
			ds_aggregate_add_recorded(&replayed,
				(const struct ds_attribution_entry *) (void *) entries->data,
				entries->len, ds_request_at(&r, i)->latency, g);
		}
		ds_aggregate_finish(&direct);
		ds_aggregate_finish(&replayed);
		same = direct.frames->len == replayed.frames->len;
		for (i = 0; same && i < direct.frames->len; i++) {
			const struct ds_frame *x = ds_frame_at(&direct, i), *y = ds_frame_at(&replayed, i);

			same = x->parent == y->parent && x->kind == y->kind &&
				strcmp(ds_frame_label(&direct, x), ds_frame_label(&replayed, y)) == 0 &&
				memcmp(x->sum, y->sum, sizeof(x->sum)) == 0 &&
				memcmp(x->count, y->count, sizeof(x->count)) == 0 &&
				memcmp(x->state_sum, y->state_sum, sizeof(x->state_sum)) == 0;
		}
		snprintf(what, sizeof(what), "record/replay %s: %u frames, identical", modes[m],
			direct.frames->len);
		UNIT_CHECK(same && direct.frames->len > 3, what);
		ds_aggregate_fini(&direct);
		ds_aggregate_fini(&replayed);
		ds_requests_fini(&r);
		g_array_free(entries, TRUE);
	}
}

/* The page cache of the frame at `path`, NULL when none. */
static const struct ds_frame_cache *cache_of(const struct ds_aggregate *agg, const char *path)
{
	GString *text = g_string_new(NULL);
	const struct ds_frame_cache *result = NULL;
	uint32_t i;

	for (i = 1; i < agg->frames->len && !result; i++) {
		g_string_truncate(text, 0);
		ds_frame_path(agg, i, " > ", text);
		if (strcmp(text->str, path) == 0) {
			result = ds_frame_cache_of(agg, ds_frame_at(agg, i));
		}
	}
	g_string_free(text, TRUE);
	return result;
}

/* Reads of the last span (`cache_reads`, doc/diff.md "Page cache"). */
static void add_reads(const struct ds_cache_read *reads, uint32_t count)
{
	struct ds_span *span = ds_store_span(&store, store.span_count - 1);
	struct ds_cache_read *run = ds_arena_alloc(&store.reads, count);

	memcpy(run, reads, count * sizeof(*run));
	span->read_base = (uint32_t) (store.reads.used - count);
	span->reads = run;
	span->read_count = count;
}

/*
 * Page cache per frame: a missing read [5, 70) runs [5, 20), blocks [20, 50) and runs [50, 70): its
 * `[System call] pread64` frame counts it once with 35 ns, its blocked frame once with 30 ns; a hit
 * [72, 75) of the same frame; the request of group B the same with the read a hit.  Direct and
 * replayed aggregates agree.
 */
static void test_frame_cache(void)
{
	static const struct ds_cache_read miss[] = { { 5, 70, true }, { 72, 75, false } };
	static const struct ds_cache_read hit[] = { { 5, 70, false } };
	struct ds_requests r;
	struct ds_aggregate direct, replayed;
	GArray *entries = g_array_new(FALSE, FALSE, sizeof(struct ds_attribution_entry));
	const struct ds_frame_cache *c;
	uint32_t i;

	reset_store();
	add_span(1, 1, 0, "db", "h", 0, 80);
	add_segment(0, 5, DS_STATE_USER, "");
	add_segment(5, 20, DS_STATE_SYSCALL, "pread64");
	add_segment(20, 50, DS_STATE_BLOCKED, "pread64");
	add_segment(50, 70, DS_STATE_SYSCALL, "pread64");
	add_segment(70, 72, DS_STATE_USER, "");
	add_segment(72, 75, DS_STATE_SYSCALL, "pread64");
	add_segment(75, 80, DS_STATE_USER, "");
	add_reads(miss, 2);
	add_span(2, 1, 0, "db", "h", 0, 80);
	add_segment(0, 5, DS_STATE_USER, "");
	add_segment(5, 70, DS_STATE_SYSCALL, "pread64");
	add_segment(70, 80, DS_STATE_USER, "");
	add_reads(hit, 1);
	ds_requests_build(&r, &store, 5000);
	ds_aggregate_init(&direct, store.strings, DS_MODE_CRITICAL_PATH);
	ds_aggregate_init(&replayed, store.strings, DS_MODE_CRITICAL_PATH);
	for (i = 0; i < r.requests->len; i++) {
		enum ds_group g = ds_request_at(&r, i)->trace_id_low == 1 ? DS_GROUP_B : DS_GROUP_A;

		ds_aggregate_add(&direct, &store, &r, i, g);
		g_array_set_size(entries, 0);
		ds_attribution_record(&store, &r, i, DS_MODE_CRITICAL_PATH, entries);
		ds_aggregate_add_recorded(&replayed, (const struct ds_attribution_entry *) (void *) entries->data,
			entries->len, ds_request_at(&r, i)->latency, g);
	}
	ds_aggregate_finish(&direct);
	ds_aggregate_finish(&replayed);
	c = cache_of(&direct, "db: op > [System call] pread64");
	UNIT_CHECK(c && c->misses[DS_GROUP_B] == 1 && c->miss_time[DS_GROUP_B] == 35 &&
		c->hits[DS_GROUP_B] == 1 && c->hit_time[DS_GROUP_B] == 3,
		"frame cache: the running frame counts the miss once (two pieces, 35 ns) and the hit");
	UNIT_CHECK(c && c->hits[DS_GROUP_A] == 1 && c->hit_time[DS_GROUP_A] == 65 && c->misses[DS_GROUP_A] == 0,
		"frame cache: group A's hit");
	c = cache_of(&direct, "db: op > [Waited blocked] pread64");
	UNIT_CHECK(c && c->misses[DS_GROUP_B] == 1 && c->miss_time[DS_GROUP_B] == 30 && c->hits[DS_GROUP_B] == 0 &&
		c->misses[DS_GROUP_A] == 0, "frame cache: the blocked frame holds the miss's wait");
	UNIT_CHECK(cache_of(&direct, "db: op > [User]") == NULL, "frame cache: none on frames without reads");
	for (i = 1; i < direct.frames->len; i++) {
		const struct ds_frame_cache *x = ds_frame_cache_of(&direct, ds_frame_at(&direct, i));
		const struct ds_frame_cache *y = ds_frame_cache_of(&replayed, ds_frame_at(&replayed, i));

		if ((x == NULL) != (y == NULL) || (x && memcmp(x, y, sizeof(*x)) != 0)) {
			break;
		}
	}
	UNIT_CHECK(i == direct.frames->len && direct.frames->len == replayed.frames->len,
		"frame cache: the replayed attribution gives the same page cache per frame");
	ds_aggregate_fini(&direct);
	ds_aggregate_fini(&replayed);
	ds_requests_fini(&r);
	g_array_free(entries, TRUE);
}

/* Appends chain entry to the last span, labels interned as chain-reader.c would. */
static void add_chain_entry(uint32_t segment, int32_t parent, unsigned int depth,
		int64_t begin, int64_t end, unsigned int state, const char *frame,
		const char *step, const char *note, bool leaf)
{
	struct ds_span *span = ds_store_span(&store, store.span_count - 1);
	struct ds_stored_chain_entry *run = ds_arena_alloc(&store.chains, span->chain_count + 1);
	struct ds_stored_chain_entry *e = &run[span->chain_count];

	if (span->chain_count) {
		memcpy(run, span->chain, span->chain_count * sizeof(*run));
	}
	memset(e, 0, sizeof(*e));
	e->segment = segment;
	e->parent = parent;
	e->depth = (uint16_t) depth;
	e->begin = begin;
	e->end = end;
	e->state = (uint8_t) state;
	e->frame = ds_strings_intern(store.strings, frame);
	e->step = step ? ds_strings_intern(store.strings, step) : 0;
	e->note = ds_strings_intern(store.strings, note);
	e->leaf = leaf;
	span->chain = run;
	span->chain_count++;
}

/*
 * A request whose blocked segment [30, w) has a chain: the holder waited for
 * CPU [30, 30 + cpu) and then ran; a child span [40, 70) cuts the segment,
 * so the critical path clips the chain twice.
 */
static void add_chained_request(uint64_t trace, int64_t w, int64_t cpu, const char *who)
{
	add_span(trace, 1, 0, "root", "h", 0, w + 10);
	add_segment(0, 30, DS_STATE_USER, "");
	add_segment(30, w, DS_STATE_BLOCKED, "futex \xe2\x86\x90 mysqld/7");
	add_segment(w, w + 10, DS_STATE_USER, "");
	add_chain_entry(1, -1, 0, 30, w, DS_STATE_BLOCKED,
		"[Waited blocked] futex \xe2\x86\x90 mysqld", NULL, "blocked on futex", false);
	add_chain_entry(1, 0, 1, 30, 30 + cpu, DS_STATE_WAIT_CPU, "mysqld [Waited CPU]",
		"ran instead: hog", who, true);
	add_chain_entry(1, 0, 1, 30 + cpu, w, DS_STATE_USER, "mysqld [User]", NULL,
		"ran \x01 in user space", true);
	add_span(trace, 2, 1, "child", "h", 40, 70);
}

static void test_chains(void)
{
	static const char *const modes[] = { "critical-path", "inclusive", "self" };
	const char *blocked = "root: op > [Waited blocked] futex \xe2\x86\x90 mysqld";
	char path[160];
	struct ds_requests r;
	struct ds_aggregate agg, replayed;
	GArray *entries = g_array_new(FALSE, FALSE, sizeof(struct ds_attribution_entry));
	__int128 leaves, latency;
	unsigned int m;
	uint32_t i;

	reset_store();
	add_chained_request(1, 90, 20, "waited \x01 for CPU 1 while hog/11 ran");	/* A */
	add_chained_request(2, 190, 95, "waited \x01 for CPU 1 while hog/12 ran");	/* B */
	add_chained_request(3, 190, 97, "waited \x01 for CPU 1 while hog/13 ran");	/* B */
	for (m = 0; m < G_N_ELEMENTS(modes); m++) {
		bool same;

		ds_requests_build(&r, &store, 5000);
		ds_aggregate_init(&agg, store.strings, (enum ds_mode) m);
		ds_aggregate_init(&replayed, store.strings, (enum ds_mode) m);
		for (i = 0; i < r.requests->len; i++) {
			enum ds_group g = i ? DS_GROUP_B : DS_GROUP_A;

			ds_aggregate_add(&agg, &store, &r, i, g);
			g_array_set_size(entries, 0);
			ds_attribution_record(&store, &r, i, (enum ds_mode) m, entries);
			ds_aggregate_add_recorded(&replayed,
				(const struct ds_attribution_entry *) (void *) entries->data,
				entries->len, ds_request_at(&r, i)->latency, g);
		}
		ds_aggregate_finish(&agg);
		ds_aggregate_finish(&replayed);
		same = agg.frames->len == replayed.frames->len;
		for (i = 0; same && i < agg.frames->len; i++) {
			const struct ds_frame *x = ds_frame_at(&agg, i), *y = ds_frame_at(&replayed, i);

			same = x->parent == y->parent && x->kind == y->kind && x->note == y->note &&
				strcmp(ds_frame_label(&agg, x), ds_frame_label(&replayed, y)) == 0 &&
				memcmp(x->sum, y->sum, sizeof(x->sum)) == 0 &&
				memcmp(x->state_sum, y->state_sum, sizeof(x->state_sum)) == 0;
		}
		snprintf(path, sizeof(path), "chains: record/replay %s identical (%u frames)",
			modes[m], agg.frames->len);
		UNIT_CHECK(same && agg.frames->len > 5, path);
		if (m == DS_MODE_CRITICAL_PATH) {
			UNIT_CHECK(ds_aggregate_check_exact(&agg, &leaves, &latency),
				"chains: critical-path leaves' B-A differences sum to the latency difference");
			UNIT_CHECK(leaves != 0, "chains: the difference is not zero");
			UNIT_EQ_INT(sum_of(&agg, blocked, DS_GROUP_A), 30,
				"chains: the segment frame keeps its critical-path width (clipped by the child)");
			snprintf(path, sizeof(path), "%s > mysqld [Waited CPU] > ran instead: hog", blocked);
			UNIT_EQ_INT(sum_of(&agg, path, DS_GROUP_A), 10,
				"chains: wait-cpu leaf clipped to the gaps before the child");
			UNIT_EQ_INT(sum_of(&agg, path, DS_GROUP_B), (55 + 10) + (57 + 10),
				"chains: one leaf for hog/12 and hog/13 (no tids in frames)");
			snprintf(path, sizeof(path), "%s > mysqld [User]", blocked);
			UNIT_EQ_INT(sum_of(&agg, path, DS_GROUP_A), 20, "chains: running leaf after the child");
			for (i = 1; i < agg.frames->len; i++) {
				const struct ds_frame *f = ds_frame_at(&agg, i);

				if (strcmp(ds_frame_label(&agg, f), "ran instead: hog") == 0) {
					UNIT_CHECK(strcmp(ds_strings_get(&strings, f->note),
						"waited \x01 for CPU 1 while hog/13 ran") == 0,
						"chains: the note is the heaviest contributor's (hog/13)");
				}
			}
		}
		ds_aggregate_fini(&agg);
		ds_aggregate_fini(&replayed);
		ds_requests_fini(&r);
	}
	g_array_free(entries, TRUE);
}

struct handed {
	GArray *latencies;	/* int64_t per request handed out */
	GArray *spans;		/* uint32_t span count per request */
};

static void collect(void *data, const struct ds_span_store *s,
		const struct ds_requests *requests, uint32_t index)
{
	struct handed *h = data;
	const struct ds_request *request = ds_request_at(requests, index);

	(void) s;
	g_array_append_val(h->latencies, request->latency);
	g_array_append_val(h->spans, request->span_count);
}

static void stream_add(struct ds_request_stream *stream, uint64_t trace, uint64_t id,
		uint64_t parent, int64_t begin, int64_t end)
{
	add_span_to(&stream->store, trace, id, parent, "s", "h", begin, end);
	ds_request_stream_note(stream, 0);
}

static void test_stream_completion(void)
{
	struct handed h = {
		g_array_new(FALSE, FALSE, sizeof(int64_t)),
		g_array_new(FALSE, FALSE, sizeof(uint32_t)),
	};
	const struct ds_request_stream_config config = {
		.grace = 100, .skew_tolerance = 5000, .build_requests = true,
		.on_request = collect, .data = &h,
	};
	struct ds_request_stream stream;

	ds_request_stream_init(&stream, &config);
	stream_add(&stream, 1, 2, 1, 10, 20);
	stream_add(&stream, 1, 1, 0, 0, 30);
	stream_add(&stream, 2, 1, 0, 25, 40);
	stream_add(&stream, 3, 1, 0, 200, 300);
	stream.flush_at = 1;
	ds_request_stream_maybe_flush(&stream);
	UNIT_EQ_INT(h.latencies->len, 2, "stream: two requests complete after the grace");
	UNIT_EQ_INT(g_array_index(h.latencies, int64_t, 0), 30, "stream: first request's latency");
	UNIT_EQ_INT(g_array_index(h.spans, uint32_t, 0), 2, "stream: first request's two spans");
	UNIT_EQ_INT(stream.store.span_count, 1, "stream: only the open request's span is held");
	stream_add(&stream, 1, 3, 1, 5, 350);
	UNIT_EQ_INT(stream.late_spans, 1, "stream: a span of a complete request is late");
	UNIT_EQ_INT(stream.store.span_count, 1, "stream: the late span is not kept");
	stream_add(&stream, 3, 2, 1, 250, 290);
	stream_add(&stream, 4, 1, 0, 360, 420);
	stream_add(&stream, 3, 3, 1, 270, 430);
	UNIT_EQ_INT(stream.late_spans, 2,
		"stream: late once the clock passed the grace, before any batch");
	ds_request_stream_finish(&stream);
	UNIT_EQ_INT(h.latencies->len, 4, "stream: the end completes every request");
	UNIT_EQ_INT(g_array_index(h.spans, uint32_t, 2), 2,
		"stream: a carried request keeps its spans across batches");
	UNIT_EQ_INT(stream.requests, 4, "stream: requests counted");
	UNIT_EQ_INT(stream.spans, 6, "stream: spans handed out (the late ones left out)");
	ds_request_stream_fini(&stream);
	g_array_set_size(h.latencies, 0);
	g_array_set_size(h.spans, 0);

	/* Many requests: memory holds a batch, not the trace. */
	{
		const struct ds_request_stream_config flat = {
			.grace = 0, .skew_tolerance = 5000, .build_requests = true,
			.on_request = collect, .data = &h,
		};
		uint32_t i;
		bool all_one = true;

		ds_request_stream_init(&stream, &flat);
		for (i = 0; i < 100000; i++) {
			stream_add(&stream, i + 1, 1, 0, (int64_t) i * 10, (int64_t) i * 10 + 5);
			ds_request_stream_maybe_flush(&stream);
		}
		ds_request_stream_finish(&stream);
		for (i = 0; i < h.spans->len; i++) {
			all_one = all_one && g_array_index(h.spans, uint32_t, i) == 1;
		}
		UNIT_EQ_INT(h.latencies->len, 100000, "stream: 100000 requests handed out");
		UNIT_CHECK(all_one, "stream: each with its span");
		UNIT_CHECK(stream.peak_spans < 40000, "stream: at most one batch of spans held");
		UNIT_CHECK(stream.batches >= 3, "stream: several batches");
		ds_request_stream_fini(&stream);
	}
	g_array_free(h.latencies, TRUE);
	g_array_free(h.spans, TRUE);
}

static gint compare_values(gconstpointer a, gconstpointer b)
{
	int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;

	return x < y ? -1 : x > y;
}

/* Exact percentiles of durations spilled in chunks equal those of the sorted values. */
static void test_duration_list(void)
{
	static const uint32_t sizes[] = { 1, 100, 4096, 3 * 4096 + 17, 20000 };
	static const double ps[] = { 0, 1, 25, 50, 95, 99, 99.9, 100 };
	struct ds_spill spill;
	unsigned int t, k;

	UNIT_CHECK(ds_spill_open(&spill, g_get_tmp_dir()), "duration list: spill file created");
	for (t = 0; t < G_N_ELEMENTS(sizes); t++) {
		struct ds_duration_list list;
		int64_t *values = g_new(int64_t, sizes[t]);
		GRand *rand = g_rand_new_with_seed(t + 1);
		bool same = true;
		uint32_t i;
		char what[80];

		ds_duration_list_init(&list, &spill);
		for (i = 0; i < sizes[t]; i++) {
			/* Duplicates, a wide range and a few negatives (keys must keep the order). */
			values[i] = i % 7 == 0 ? 1000 : (int64_t) g_rand_int_range(rand, -50, 1 << 30) *
				(i % 3 == 0 ? 4096 : 1);
			ds_duration_list_add(&list, values[i]);
		}
		qsort(values, sizes[t], sizeof(int64_t), compare_values);
		for (k = 0; k < G_N_ELEMENTS(ps); k++) {
			int64_t got;

			same = same && ds_duration_list_percentile(&list, ps[k], &got) &&
				got == ds_percentile(values, sizes[t], ps[k]);
		}
		snprintf(what, sizeof(what), "duration list of %u values: exact percentiles", sizes[t]);
		UNIT_CHECK(same, what);
		UNIT_EQ_INT(list.max, values[sizes[t] - 1], "duration list: maximum");
		ds_duration_list_fini(&list);
		g_rand_free(rand);
		g_free(values);
	}
	ds_spill_close(&spill);
}


/* Names from the trace in each output kind (sanitize.h). */
static void check_text(const char *input, const char *expected, bool folded, const char *what)
{
	GString *out = g_string_new(NULL);

	if (folded) {
		ds_sanitize_folded(out, input);
	} else {
		ds_sanitize_text(out, input);
	}
	if (!UNIT_CHECK(strcmp(out->str, expected) == 0 && g_utf8_validate(out->str, -1, NULL), what)) {
		printf("#   got \"%s\"\n", out->str);
	}
	g_string_free(out, TRUE);
}

static void test_sanitize(void)
{
	char *xml = NULL;
	size_t size = 0;
	FILE *file;

	check_text("caf\xc3\xa9 \xe2\x86\x90 GET /", "caf\xc3\xa9 \xe2\x86\x90 GET /", false,
		"sanitize: valid UTF-8 unchanged");
	check_text("a\xff\xfe", "a\xef\xbf\xbd\xef\xbf\xbd", false, "sanitize: invalid bytes give U+FFFD");
	check_text("\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd", false, "sanitize: an overlong form is invalid");
	check_text("\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", false,
		"sanitize: a surrogate is invalid");
	check_text("\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", false,
		"sanitize: above U+10FFFF is invalid");
	check_text("x\xe2\x82", "x\xef\xbf\xbd\xef\xbf\xbd", false, "sanitize: a sequence cut by the end");
	check_text("\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80", false, "sanitize: 4-byte UTF-8 kept");
	check_text("a\nb\rc\td\x1b[31me\x7f\xc2\x85", "a\\nb\\rc\\td\\x1b[31me\\x7f\\u0085", false,
		"sanitize: controls as visible escapes");
	check_text("a;b\nc", "a;b\\nc", false, "sanitize: text keeps ;");
	check_text("a;b\nc", "a,b\\nc", true, "sanitize: folded replaces ;");
	file = open_memstream(&xml, &size);
	ds_sanitize_xml(file, "<a href=\"x\">&'\xff\x01\n\xef\xbf\xbe");
	fclose(file);
	UNIT_CHECK(strcmp(xml, "&lt;a href=&quot;x&quot;&gt;&amp;&#39;\xef\xbf\xbd\\x01\n\xef\xbf\xbd") == 0,
		"sanitize: XML entities, U+FFFD, escaped controls, no U+FFFE");
	free(xml);
	/* the unchanged runs between the characters rewritten are written whole */
	check_text("ab\xef\xbf\xbd cd\x01" "ef;g\xffh", "ab\xef\xbf\xbd cd\\x01ef;g\xef\xbf\xbdh", false,
		"sanitize: runs around controls and invalid bytes");
	check_text("ab;cd;", "ab,cd,", true, "sanitize: folded runs around ;");
	xml = NULL;
	file = open_memstream(&xml, &size);
	ds_sanitize_xml(file, "plain \xe2\x86\x90 text\t<b>\xef\xbf\xbd end\x1b");
	fclose(file);
	UNIT_CHECK(strcmp(xml, "plain \xe2\x86\x90 text\t&lt;b&gt;\xef\xbf\xbd end\\x1b") == 0,
		"sanitize: XML runs around entities, a valid U+FFFD, a control at the end");
	free(xml);
	xml = NULL;
	file = open_memstream(&xml, &size);
	ds_sanitize_xml(file, "");
	fclose(file);
	UNIT_CHECK(strcmp(xml, "") == 0, "sanitize: XML of an empty name");
	free(xml);
}

/*
 * Interned strings (span-store.c): texts of one cache slot (same length, first and last 8 bytes) get distinct
 * ids; every text interned again, in any order, gets its first id back; ids are given in first-seen order.
 */
static void test_strings_intern(void)
{
	struct ds_strings s;
	const char *texts[] = { "aaaaaaaaXbbbbbbbb", "aaaaaaaaYbbbbbbbb", "aaaaaaaaZbbbbbbbb", "futex", "read",
		"mysqld/1289", "mysqld/1298", "x", "softirq:NET_RX" };
	uint32_t ids[G_N_ELEMENTS(texts)];
	bool ok = true;
	guint i, round;

	ds_strings_init(&s);
	UNIT_EQ_UINT(ds_strings_intern(&s, ""), 0, "strings: the empty string is id 0");
	for (i = 0; i < G_N_ELEMENTS(texts); i++) {
		ids[i] = ds_strings_intern(&s, texts[i]);
		ok = ok && ids[i] == i + 1;
	}
	UNIT_CHECK(ok, "strings: ids in first-seen order, one per distinct text (same-slot texts apart)");
	ok = true;
	for (round = 0; round < 3; round++) {
		for (i = 0; i < G_N_ELEMENTS(texts); i++) {
			guint j = round == 1 ? G_N_ELEMENTS(texts) - 1 - i : (i * 4 + round) % G_N_ELEMENTS(texts);
			char copy[32];

			g_strlcpy(copy, texts[j], sizeof(copy));	/* another pointer, the same text */
			ok = ok && ds_strings_intern(&s, copy) == ids[j] && strcmp(ds_strings_get(&s, ids[j]), texts[j]) == 0;
		}
	}
	UNIT_CHECK(ok, "strings: every text interned again gets its id back");
	UNIT_EQ_UINT(ds_strings_find(&s, "aaaaaaaaYbbbbbbbb"), ids[1], "strings: find agrees");
	ds_strings_fini(&s);
}

int main(void)
{
	ds_strings_init(&strings);
	ds_span_store_init(&store, &strings);
	test_strings_intern();
	test_sequential();
	test_parallel();
	test_async_child();
	test_skewed_child();
	test_nested();
	test_union_self();
	test_segments();
	test_proportional();
	test_tree_building();
	test_skew_order_tree();
	test_record_replay();
	test_frame_cache();
	test_chains();
	test_stream_completion();
	test_diff_vectors();
	test_colours();
	test_groups_default();
	test_percentile_and_format();
	test_duration_list();
	test_arena();
	test_span_chunks();
	test_segment_packing();
	test_sanitize();
	ds_span_store_fini(&store);
	ds_strings_fini(&strings);
	return unit_finish();
}
