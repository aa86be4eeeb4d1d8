/* SPDX-License-Identifier: MIT */
#include "sim-state.h"

#include <string.h>

#include "states.h"

/* The truth names states as deepspan:span does: the same six, in the same order. */
_Static_assert((int) SIM_ST_USER == (int) DS_STATE_USER &&
	(int) SIM_ST_SYSCALL == (int) DS_STATE_SYSCALL &&
	(int) SIM_ST_BLOCKED == (int) DS_STATE_BLOCKED &&
	(int) SIM_ST_WAIT_CPU == (int) DS_STATE_WAIT_CPU &&
	(int) SIM_ST_INTERRUPTED == (int) DS_STATE_INTERRUPTED &&
	(int) SIM_ST_UNKNOWN == (int) DS_STATE_UNKNOWN &&
	(int) SIM_ST_COUNT == (int) DS_STATE_COUNT, "sim_tstate follows enum ds_state");

const char *sim_tstate_name(enum sim_tstate state)
{
	return ds_state_name((enum ds_state) state);
}

void sim_book_init(struct sim_thread_book *book)
{
	memset(book, 0, sizeof(*book));
	book->state = SIM_ST_UNKNOWN;
	book->syscall = SIM_SYS_NONE;
}

void sim_book_keep_history(struct sim_thread_book *book, int64_t keep)
{
	if (!book->history) {
		book->history = g_array_new(FALSE, FALSE, sizeof(struct sim_piece));
	}
	book->history_keep = keep;
}

void sim_book_fini(struct sim_thread_book *book)
{
	if (book->history) {
		g_array_free(book->history, TRUE);
		book->history = NULL;
	}
}

struct sim_piece *sim_book_last_piece(struct sim_thread_book *book)
{
	if (!book->history || book->history->len == 0) {
		return NULL;
	}
	return &g_array_index(book->history, struct sim_piece, book->history->len - 1);
}

static void history_append(struct sim_thread_book *book, enum sim_tstate state, int64_t ts)
{
	struct sim_piece piece = {
		.begin = ts, .state = (uint8_t) state, .syscall = (int8_t) book->syscall, .cpu = -1,
		.migrate_cpu = -1,
	};
	GArray *h = book->history;

	/* amortized: drop the pieces that ended before the kept window once they are half the array */
	if (h->len >= 256 && g_array_index(h, struct sim_piece, h->len / 2).begin < ts - book->history_keep) {
		g_array_remove_range(h, 0, h->len / 2);
	}
	g_array_append_val(h, piece);
}

static void charge(struct sim_thread_book *book, int64_t ts)
{
	struct sim_span *span;

	for (span = book->spans; span; span = span->outer) {
		int64_t from = book->since > span->begin ? book->since : span->begin;

		if (ts > from) {
			span->states[book->state] += ts - from;
		}
	}
	book->since = ts;
}

void sim_book_flush(struct sim_thread_book *book, int64_t ts)
{
	if (ts > book->since) {
		charge(book, ts);
	}
}

void sim_book_set(struct sim_thread_book *book, enum sim_tstate state, int64_t ts)
{
	if (state == book->state) {
		return;
	}
	charge(book, ts);
	book->state = state;
	if (book->history) {
		history_append(book, state, ts);
	}
}

enum sim_tstate sim_book_running_state(const struct sim_thread_book *book)
{
	return book->syscall == SIM_SYS_NONE ? SIM_ST_USER : SIM_ST_SYSCALL;
}

void sim_book_syscall_entry(struct sim_thread_book *book, enum sim_syscall sys, int64_t ts)
{
	book->syscall = sys;
	book->syscall_entry = ts;
	book->syscall_block_io = false;
	sim_book_set(book, SIM_ST_SYSCALL, ts);
}

static void charge_syscall(struct sim_thread_book *book, struct sim_span *span, int64_t ts)
{
	int64_t from = book->syscall_entry > span->begin ? book->syscall_entry : span->begin;

	span->syscalls[book->syscall].count++;
	if (ts > from) {
		span->syscalls[book->syscall].duration += ts - from;
	}
	if ((book->syscall == SIM_SYS_READ || book->syscall == SIM_SYS_PREAD64) && book->syscall_entry >= span->begin) {
		/* a miss when the syscall issued a block request (doc/storage-network.md "Page cache") */
		if (book->syscall_block_io) {
			span->cache_misses++;
			span->cache_miss_time += ts - book->syscall_entry;
		} else {
			span->cache_hits++;
			span->cache_hit_time += ts - book->syscall_entry;
		}
	}
}

void sim_book_syscall_exit(struct sim_thread_book *book, int64_t ts)
{
	struct sim_span *span;

	if (book->syscall == SIM_SYS_NONE) {
		return;
	}
	for (span = book->spans; span; span = span->outer) {
		charge_syscall(book, span, ts);
	}
	book->syscall = SIM_SYS_NONE;
	sim_book_set(book, SIM_ST_USER, ts);
}

void sim_book_span_start(struct sim_thread_book *book, struct sim_span *span, int64_t ts)
{
	charge(book, ts);
	memset(span->states, 0, sizeof(span->states));
	memset(span->syscalls, 0, sizeof(span->syscalls));
	span->begin = ts;
	span->end = ts;
	span->outer = book->spans;
	book->spans = span;
}

struct sim_span *sim_book_span_end(struct sim_thread_book *book, int64_t ts)
{
	struct sim_span *span = book->spans;

	if (!span) {
		return NULL;
	}
	charge(book, ts);
	if (book->syscall != SIM_SYS_NONE) {
		charge_syscall(book, span, ts);
	}
	span->end = ts;
	book->spans = span->outer;
	span->outer = NULL;
	return span;
}
