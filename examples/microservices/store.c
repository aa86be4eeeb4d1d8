/* SPDX-License-Identifier: MIT */
/*
 * ds-store: GET /reserve?user=U&items=N — reserves N items under one global inventory lock,
 * spending --work-us of CPU per item while holding it. A big cart therefore holds the lock
 * too long: it is slow itself and delays every reservation queued behind it (the classic
 * "lock held too long" that deepspan shows as Waited blocked on futex in the waiters).
 * With --journal=FILE it also appends one line per reservation to FILE and fdatasyncs it while
 * holding the lock (a span "journal write"): disk latency then shows up too (doc/real-kernels.md).
 * With --hold-sleep-us=US it also sleeps US per item (one nanosleep) while holding the lock: a holder
 * that blocks rather than computes, so the waiters' futex waits lead to a timer (the `one-lock`
 * real-kernel fixture); it then prints its thread id to stderr, which names the holders.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "service.h"

#define SERVICE_NAME "store"
#define MAX_ITEMS 10000

static pthread_mutex_t inventory_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long reserved_items;	/* guarded by inventory_lock */
static int journal_fd = -1;		/* guarded by inventory_lock; opened on first use, never closed */

/* Appends and syncs one journal line (inventory_lock held). */
static void journal_write(const struct deepspan_span *parent, const char *path, unsigned long items,
		unsigned long total)
{
	struct deepspan_context context = deepspan_span_context(parent);
	struct deepspan_span span;
	char line[96];
	int len;
	bool ok;

	deepspan_span_start(&span, &context, SERVICE_NAME, "journal write", DEEPSPAN_KIND_INTERNAL);
	if (journal_fd < 0) {
		journal_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	}
	len = snprintf(line, sizeof(line), "reserve %lu total %lu\n", items, total);
	ok = journal_fd >= 0 && write(journal_fd, line, (size_t) len) == len && fdatasync(journal_fd) == 0;
	deepspan_span_end(&span, ok ? DEEPSPAN_STATUS_OK : DEEPSPAN_STATUS_ERROR);
}

/* Sleeps `us` microseconds (inventory_lock held), through signals. */
static void hold_sleep(uint64_t us)
{
	struct timespec left = { .tv_sec = (time_t) (us / 1000000), .tv_nsec = (long) (us % 1000000) * 1000 };

	while (nanosleep(&left, &left) != 0 && errno == EINTR) {
	}
}

static void handle(int fd, const struct http_request *req, const struct service_options *opts)
{
	unsigned long items = http_query_ulong(req->path, "items", 1);
	struct deepspan_span span, reserve;
	struct deepspan_context context;
	unsigned long total;
	char body[128];

	if (!http_path_is(req->path, "/reserve") || items == 0 || items > MAX_ITEMS) {
		http_send_response(fd, 400, "bad reservation\n");
		return;
	}
	deepspan_span_start(&span, req->has_context ? &req->context : NULL, SERVICE_NAME,
		"GET /reserve", DEEPSPAN_KIND_SERVER);
	context = deepspan_span_context(&span);
	deepspan_span_start(&reserve, &context, SERVICE_NAME, "reserve items", DEEPSPAN_KIND_INTERNAL);
	pthread_mutex_lock(&inventory_lock);
	service_busy_wait_ns((uint64_t) items * opts->work_us * 1000);
	reserved_items += items;
	total = reserved_items;
	if (opts->journal) {
		journal_write(&reserve, opts->journal, items, total);
	}
	if (opts->hold_sleep_us) {
		hold_sleep((uint64_t) items * opts->hold_sleep_us);
	}
	pthread_mutex_unlock(&inventory_lock);
	if (opts->hold_sleep_us) {
		fprintf(stderr, "ds-store: tid %ld held the inventory lock sleeping %lu us (%lu items)\n",
			(long) syscall(SYS_gettid), items * opts->hold_sleep_us, items);
	}
	deepspan_span_end(&reserve, DEEPSPAN_STATUS_OK);
	snprintf(body, sizeof(body), "{\"reserved\":%lu,\"total\":%lu}\n", items, total);
	deepspan_span_end(&span, DEEPSPAN_STATUS_OK);
	http_send_response(fd, 200, body);
}

int main(int argc, char **argv)
{
	return service_main("ds-store", argc, argv, handle);
}
