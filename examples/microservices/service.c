/* SPDX-License-Identifier: MIT */
/* The common life of an example service (see service.h). */
#define _GNU_SOURCE
#include "service.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop_requested;

struct connection {
	int fd;						/* owned */
	service_handler handler;
	const struct service_options *opts;		/* borrowed */
};

static pthread_mutex_t active_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t active_changed = PTHREAD_COND_INITIALIZER;
static unsigned int active_threads;

uint64_t service_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * UINT64_C(1000000000) + (uint64_t) ts.tv_nsec;
}

void service_busy_wait_ns(uint64_t ns)
{
	uint64_t deadline = service_now_ns() + ns;
	volatile uint64_t sink = 0;

	while (service_now_ns() < deadline) {
		for (unsigned int i = 0; i < 256; i++) {
			sink += i;
		}
	}
}

static void on_stop_signal(int signo)
{
	(void) signo;
	stop_requested = 1;
}

static void serve_connection(struct connection *conn)
{
	struct http_request req = { 0 };

	if (http_read_request(conn->fd, &req)) {
		if (http_path_is(req.path, "/health")) {
			http_send_response(conn->fd, 200, "ok\n");	/* readiness probe: not traced */
		} else {
			conn->handler(conn->fd, &req, conn->opts);
		}
	} else {
		http_send_response(conn->fd, 400, "bad request\n");
	}
	close(conn->fd);
}

static void *connection_thread(void *arg)
{
	struct connection *conn = arg;

	serve_connection(conn);
	free(conn);
	pthread_mutex_lock(&active_lock);
	active_threads--;
	pthread_cond_signal(&active_changed);
	pthread_mutex_unlock(&active_lock);
	return NULL;
}

/* Serves `conn` on a new thread, waiting (bounded) while SERVICE_MAX_THREADS are busy. */
static void dispatch(struct connection *conn)
{
	pthread_t thread;
	pthread_attr_t attr;
	struct timespec deadline;

	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += HTTP_IO_TIMEOUT_MS / 1000;
	pthread_mutex_lock(&active_lock);
	while (active_threads >= SERVICE_MAX_THREADS &&
			pthread_cond_timedwait(&active_changed, &active_lock, &deadline) == 0) {
	}
	active_threads++;
	pthread_mutex_unlock(&active_lock);

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&thread, &attr, connection_thread, conn) != 0) {
		connection_thread(conn);	/* no thread: serve inline (it releases the slot) */
	}
	pthread_attr_destroy(&attr);
}

/* Waits at most `seconds` for the connection threads to finish. */
static void drain(unsigned int seconds)
{
	struct timespec deadline;

	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += seconds;
	pthread_mutex_lock(&active_lock);
	while (active_threads > 0 &&
			pthread_cond_timedwait(&active_changed, &active_lock, &deadline) == 0) {
	}
	pthread_mutex_unlock(&active_lock);
}

static void usage(FILE *out, const char *name)
{
	fprintf(out,
		"usage: %s (--port=PORT | --listen-fd=FD) [--bind=ADDR] [--max-requests=N] [--max-seconds=S]\n"
		"          [--account-port=PORT] [--account-host=ADDR] [--store-port=PORT] [--store-host=ADDR]\n"
		"          [--work-us=US] [--journal=FILE] [--holder-ms=MS] [--holder-period-ms=MS]\n"
		"An example deepspan-instrumented service on 127.0.0.1 (see doc/instrumentation.md); --bind and\n"
		"the --*-host options (IPv4 addresses) put the services on several hosts (doc/real-kernels.md).\n",
		name);
}

static bool parse_options(const char *name, int argc, char **argv, struct service_options *opts)
{
	static const struct option long_options[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "listen-fd", required_argument, NULL, 'l' },
		{ "max-requests", required_argument, NULL, 'n' },
		{ "max-seconds", required_argument, NULL, 's' },
		{ "account-port", required_argument, NULL, 'a' },
		{ "store-port", required_argument, NULL, 'o' },
		{ "work-us", required_argument, NULL, 'w' },
		{ "bind", required_argument, NULL, 'b' },
		{ "journal", required_argument, NULL, 'j' },
		{ "holder-ms", required_argument, NULL, 'H' },
		{ "holder-period-ms", required_argument, NULL, 'P' },
		{ "account-host", required_argument, NULL, 'A' },
		{ "store-host", required_argument, NULL, 'O' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct in_addr loopback = { .s_addr = htonl(INADDR_LOOPBACK) };
	int c;

	*opts = (struct service_options) { .listen_fd = -1, .max_requests = 100000, .max_seconds = 300,
		.work_us = 200, .holder_period_ms = 300, .bind = loopback, .account_host = loopback, .store_host = loopback };
	while ((c = getopt_long(argc, argv, "h", long_options, NULL)) != -1) {
		unsigned long value = optarg ? strtoul(optarg, NULL, 10) : 0;

		switch (c) {
		case 'p': opts->port = (uint16_t) value; break;
		case 'l': opts->listen_fd = (int) value; break;
		case 'n': opts->max_requests = value; break;
		case 's': opts->max_seconds = value; break;
		case 'a': opts->account_port = (uint16_t) value; break;
		case 'o': opts->store_port = (uint16_t) value; break;
		case 'w': opts->work_us = value; break;
		case 'j': opts->journal = optarg; break;
		case 'H': opts->holder_ms = value; break;
		case 'P': opts->holder_period_ms = value; break;
		case 'b':
		case 'A':
		case 'O':
			if (inet_pton(AF_INET, optarg, c == 'b' ? &opts->bind : c == 'A' ? &opts->account_host :
					&opts->store_host) != 1) {
				fprintf(stderr, "%s: bad IPv4 address '%s'\n", name, optarg);
				return false;
			}
			break;
		case 'h': usage(stdout, name); exit(0);
		default: usage(stderr, name); return false;
		}
	}
	if (optind != argc || (opts->port == 0) == (opts->listen_fd < 0)) {
		usage(stderr, name);
		return false;
	}
	return true;
}

int service_main(const char *name, int argc, char **argv, service_handler handler)
{
	struct service_options opts;
	struct sigaction sa = { .sa_handler = on_stop_signal };
	unsigned long served = 0;
	uint64_t deadline;
	int listen_fd;

	if (!parse_options(name, argc, argv, &opts)) {
		return 2;
	}
	listen_fd = opts.listen_fd >= 0 ? opts.listen_fd : http_listen(opts.bind, opts.port);
	if (listen_fd < 0) {
		char address[INET_ADDRSTRLEN] = "?";

		inet_ntop(AF_INET, &opts.bind, address, sizeof(address));
		fprintf(stderr, "%s: cannot listen on %s:%u: %s\n", name, address, opts.port, strerror(errno));
		return 1;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	deadline = service_now_ns() + (uint64_t) opts.max_seconds * UINT64_C(1000000000);
	while (!stop_requested && served < opts.max_requests && service_now_ns() < deadline) {
		struct pollfd pfd = { .fd = listen_fd, .events = POLLIN };
		struct connection *conn;
		int fd;

		if (poll(&pfd, 1, 200) <= 0) {
			continue;
		}
		fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0) {
			continue;
		}
		conn = malloc(sizeof(*conn));
		if (!conn) {
			close(fd);
			continue;
		}
		*conn = (struct connection) { .fd = fd, .handler = handler, .opts = &opts };
		served++;
		dispatch(conn);
	}
	close(listen_fd);
	drain(HTTP_IO_TIMEOUT_MS / 1000);
	return 0;
}
