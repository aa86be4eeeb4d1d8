/* SPDX-License-Identifier: MIT */
/*
 * Progress on stderr for the sinks: events read, spans, complete requests,
 * throughput, refreshed four times a second, only when stderr is a terminal
 * (nothing otherwise).
 */
#ifndef DEEPSPAN_DIFF_PROGRESS_H
#define DEEPSPAN_DIFF_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

struct ds_progress {
	bool enabled;		/* stderr is a terminal */
	bool shown;		/* a line is on screen */
	const char *what;	/* borrowed: component class name */
	int64_t start_us;
	int64_t last_us;
	uint64_t events;
	uint64_t spans;
	const uint64_t *requests;	/* borrowed: complete requests so far, or NULL (not counted) */
};

void ds_progress_init(struct ds_progress *progress, const char *what);

/* Redraws the line unless it was drawn less than 250 ms ago. */
void ds_progress_refresh(struct ds_progress *progress);

/* Counts one event; refreshes the line at most four times a second. */
static inline void ds_progress_event(struct ds_progress *progress, bool is_span)
{
	progress->events++;
	progress->spans += is_span;
	if (progress->enabled && (progress->events & 1023) == 0) {
		ds_progress_refresh(progress);
	}
}

/* Prints a last message (e.g. "building requests") or clears the line (NULL). */
void ds_progress_stage(struct ds_progress *progress, const char *stage);

#endif /* DEEPSPAN_DIFF_PROGRESS_H */
