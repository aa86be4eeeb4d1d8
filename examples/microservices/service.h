/* SPDX-License-Identifier: MIT */
/*
 * The common life of an example service: parse the command line, listen (on loopback by default), serve each
 * connection on its own thread (at most SERVICE_MAX_THREADS at once), stop on SIGTERM/SIGINT,
 * after --max-requests connections, or after --max-seconds — every loop is bounded.
 */
#ifndef DEEPSPAN_EXAMPLES_SERVICE_H
#define DEEPSPAN_EXAMPLES_SERVICE_H

#include <stdint.h>

#include "http.h"

#define SERVICE_MAX_THREADS 16

/* Per-service options (the handler reads its own from `ports` and `work_us`). */
struct service_options {
	uint16_t port;			/* --port (0: none given) */
	int listen_fd;			/* --listen-fd (-1: none given): an inherited listening socket */
	unsigned long max_requests;	/* --max-requests (default 100000) */
	unsigned long max_seconds;	/* --max-seconds (default 300) */
	struct in_addr bind;		/* --bind (default 127.0.0.1): the address --port listens on */
	uint16_t account_port;		/* --account-port: where the gateway finds the account service */
	struct in_addr account_host;	/* --account-host (default 127.0.0.1) */
	uint16_t store_port;		/* --store-port */
	struct in_addr store_host;	/* --store-host (default 127.0.0.1) */
	unsigned long work_us;		/* --work-us: CPU time per request (service-specific meaning) */
	const char *journal;		/* --journal=FILE (borrowed from argv; NULL: none): ds-store appends and
					 * fdatasyncs one line per reservation */
	unsigned long holder_ms;	/* --holder-ms (default 0: none): ds-store's lock-holder thread sleeps
					 * this long holding its snapshot lock, once per --holder-period-ms */
	unsigned long holder_period_ms;	/* --holder-period-ms (default 300) */
};

/* Handles one parsed request on `fd` (the service responds; the caller closes the socket). */
typedef void (*service_handler)(int fd, const struct http_request *req, const struct service_options *opts);

/* Runs the service `name` with `handler`; returns the process exit status. */
int service_main(const char *name, int argc, char **argv, service_handler handler);

/* Spins on the CPU for `ns` nanoseconds of wall time (a busy loop, bounded by the clock). */
void service_busy_wait_ns(uint64_t ns);

/* CLOCK_MONOTONIC in ns (the clock LTTng-UST timestamps with). */
uint64_t service_now_ns(void);

#endif /* DEEPSPAN_EXAMPLES_SERVICE_H */
