/* SPDX-License-Identifier: MIT */
/*
 * ds-store: GET /reserve?user=U&items=N — reserves N items under one global inventory lock,
 * spending --work-us of CPU per item while holding it. A big cart therefore holds the lock
 * too long: it is slow itself and delays every reservation queued behind it (the classic
 * "lock held too long" that deepspan shows as Waited blocked on futex in the waiters).
 * With --journal=FILE it also appends one line per reservation to FILE and fdatasyncs it while
 * holding the lock (a span "journal write"): disk latency then shows up too (doc/real-kernels.md).
 * With --holder-ms=H a thread named lock-holder, started by the first reservation, takes the snapshot
 * lock (a read-write lock every reservation holds for reading around the inventory lock) exclusively
 * once per --holder-period-ms and sleeps H ms holding it (one nanosleep: a snapshot writer that blocks
 * rather than computes); the reservations arriving meanwhile wait on futex until its unlock wakes them
 * all (the `one-lock` real-kernel fixture). It prints its thread id to stderr when it starts.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
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

static pthread_rwlock_t snapshot_lock;	/* writer-preferring; initialised by start_lock_holder */
static pthread_mutex_t holder_start_lock = PTHREAD_MUTEX_INITIALIZER;
static bool holder_started;		/* set under holder_start_lock (release), read with acquire */
static struct {
	uint64_t hold_ns, rest_ns;	/* asleep holding snapshot_lock, asleep without it */
	uint64_t deadline_ns;		/* the holder stops then (--max-seconds after its start) */
} holder_config;			/* written before the holder thread starts, then read-only */

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

/* Sleeps `ns` nanoseconds, through signals. */
static void sleep_ns(uint64_t ns)
{
	struct timespec left = { .tv_sec = (time_t) (ns / 1000000000), .tv_nsec = (long) (ns % 1000000000) };

	while (nanosleep(&left, &left) != 0 && errno == EINTR) {
	}
}

static void *lock_holder_main(void *arg)
{
	(void) arg;
	pthread_setname_np(pthread_self(), "lock-holder");
	fprintf(stderr, "ds-store: lock-holder tid %ld sleeps %" PRIu64 " ms holding the snapshot lock every %"
		PRIu64 " ms\n", (long) syscall(SYS_gettid), holder_config.hold_ns / 1000000,
		(holder_config.hold_ns + holder_config.rest_ns) / 1000000);
	while (service_now_ns() < holder_config.deadline_ns) {
		sleep_ns(holder_config.rest_ns);
		pthread_rwlock_wrlock(&snapshot_lock);
		sleep_ns(holder_config.hold_ns);
		pthread_rwlock_unlock(&snapshot_lock);
	}
	return NULL;
}

/* Initialises snapshot_lock and starts the lock-holder thread, once (--holder-ms given). */
static void start_lock_holder(const struct service_options *opts)
{
	pthread_rwlockattr_t attr;
	pthread_attr_t thread_attr;
	pthread_t thread;
	int rc;

	if (__atomic_load_n(&holder_started, __ATOMIC_ACQUIRE)) {
		return;
	}
	pthread_mutex_lock(&holder_start_lock);
	if (!holder_started) {
		pthread_rwlockattr_init(&attr);
		pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
		pthread_rwlock_init(&snapshot_lock, &attr);
		pthread_rwlockattr_destroy(&attr);
		holder_config.hold_ns = (uint64_t) opts->holder_ms * 1000000;
		holder_config.rest_ns = opts->holder_period_ms > opts->holder_ms ?
			(uint64_t) (opts->holder_period_ms - opts->holder_ms) * 1000000 : 0;
		holder_config.deadline_ns = service_now_ns() + (uint64_t) opts->max_seconds * 1000000000;
		pthread_attr_init(&thread_attr);
		pthread_attr_setdetachstate(&thread_attr, PTHREAD_CREATE_DETACHED);
		rc = pthread_create(&thread, &thread_attr, lock_holder_main, NULL);
		if (rc != 0) {
			fprintf(stderr, "ds-store: cannot start the lock-holder thread: %s\n", strerror(rc));
		}
		pthread_attr_destroy(&thread_attr);
		__atomic_store_n(&holder_started, true, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&holder_start_lock);
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
	if (opts->holder_ms) {
		start_lock_holder(opts);
	}
	deepspan_span_start(&reserve, &context, SERVICE_NAME, "reserve items", DEEPSPAN_KIND_INTERNAL);
	if (opts->holder_ms) {
		pthread_rwlock_rdlock(&snapshot_lock);
	}
	pthread_mutex_lock(&inventory_lock);
	service_busy_wait_ns((uint64_t) items * opts->work_us * 1000);
	reserved_items += items;
	total = reserved_items;
	if (opts->journal) {
		journal_write(&reserve, opts->journal, items, total);
	}
	pthread_mutex_unlock(&inventory_lock);
	if (opts->holder_ms) {
		pthread_rwlock_unlock(&snapshot_lock);
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
