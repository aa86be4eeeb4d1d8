/* SPDX-License-Identifier: MIT */
#include "progress.h"

#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>
#include <glib.h>

#define REFRESH_US 250000

void ds_progress_init(struct ds_progress *progress, const char *what)
{
	progress->enabled = isatty(STDERR_FILENO) == 1;
	progress->shown = false;
	progress->what = what;
	progress->start_us = g_get_monotonic_time();
	progress->last_us = progress->start_us;
	progress->events = 0;
	progress->spans = 0;
	progress->requests = NULL;
}

/* "N events, N spans[, N requests]" without a newline. */
static void print_counts(const struct ds_progress *progress)
{
	fprintf(stderr, "\r\033[K%s: %" PRIu64 " events, %" PRIu64 " spans", progress->what,
		progress->events, progress->spans);
	if (progress->requests) {
		fprintf(stderr, ", %" PRIu64 " requests", *progress->requests);
	}
}

void ds_progress_refresh(struct ds_progress *progress)
{
	int64_t now = g_get_monotonic_time();
	double seconds;

	if (!progress->enabled || now - progress->last_us < REFRESH_US) {
		return;
	}
	progress->last_us = now;
	seconds = (double) (now - progress->start_us) / 1e6;
	print_counts(progress);
	fprintf(stderr, ", %.0f events/s", seconds > 0 ? (double) progress->events / seconds : 0.0);
	fflush(stderr);
	progress->shown = true;
}

void ds_progress_stage(struct ds_progress *progress, const char *stage)
{
	if (!progress->enabled) {
		return;
	}
	if (stage) {
		print_counts(progress);
		fprintf(stderr, ": %s", stage);
		progress->shown = true;
	} else if (progress->shown) {
		fputs("\r\033[K", stderr);
		progress->shown = false;
	}
	fflush(stderr);
}
