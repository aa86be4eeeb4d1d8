/* SPDX-License-Identifier: MIT */
/*
 * ds-loadgen: drives the example application and measures it.
 *
 * With --spawn (the default when no --gateway-port is given) it starts ds-account, ds-store and
 * ds-gateway from its own directory on free loopback ports, sends --requests requests from
 * --concurrency threads, stops the services, and prints one JSON document: every request with
 * its trace id, root span id, measured begin/end (CLOCK_MONOTONIC ns, the clock LTTng-UST
 * uses) and latency, and whether it was made slow on purpose (a big cart that holds the
 * store's lock too long). Each request is a client span of service "loadgen".
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "service.h"

#define MAX_REQUESTS 100000
#define MAX_CONCURRENCY 16
#define SERVICE_COUNT 3

struct loadgen_options {
	unsigned long requests, warmup, concurrency, big_every, big_items, balance_every, max_seconds;
	unsigned long gateway_work_us, account_work_us, store_work_us;
	unsigned long store_holder_ms, store_holder_period_ms;	/* ds-store's --holder-ms, --holder-period-ms */
	uint16_t gateway_port;
	struct in_addr gateway_host;	/* --gateway-host (default 127.0.0.1) */
	const char *store_journal;	/* --store-journal=FILE: passed to the spawned ds-store as --journal */
	const char *output;
};

struct request_record {
	bool checkout, slow, ok;
	unsigned long items;
	struct deepspan_span span;
	uint64_t begin_ns, end_ns;
};

struct run {
	const struct loadgen_options *opts;	/* borrowed */
	struct request_record *records;		/* owned, opts->requests entries */
	unsigned long next;			/* next request index (atomic) */
	uint64_t deadline_ns;
};

struct child {
	const char *program;
	pid_t pid;
	int listen_fd;
	uint16_t port;
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: ds-loadgen [--requests=N] [--warmup=W] [--concurrency=C] [--big-every=K] [--big-items=I]\n"
		"                  [--balance-every=M] [--gateway-work-us=US] [--account-work-us=US]\n"
		"                  [--store-work-us=US] [--max-seconds=S] [--gateway-port=PORT] [--gateway-host=ADDR]\n"
		"                  [--store-journal=FILE] [--store-holder-ms=MS] [--store-holder-period-ms=MS]\n"
		"                  [--output=FILE]\n"
		"Sends N requests (default 200, at most %d) from C threads (default 4, at most %d) to the\n"
		"example gateway. Every M-th request (default 10) is GET /balance, the others GET /checkout;\n"
		"every K-th request (default 50) is a checkout of I items (default 100): the gateway prices\n"
		"each item (--gateway-work-us, 200) and the store holds its lock per item (--store-work-us,\n"
		"100): the slow requests. Without --gateway-port it starts the three\n"
		"services itself (from its own directory) and stops them at the end. Prints JSON to FILE\n"
		"(default stdout). --store-holder-ms: ds-store's lock-holder thread sleeps MS holding the\n"
		"lock every reservation shares, once per --store-holder-period-ms (default 300, > MS).\n"
		"Everything stops after S seconds (default 120). First, W sequential\n"
		"checkouts (default 5, root operation \"warm-up GET /checkout\", not measured) warm every\n"
		"process up.\n",
		MAX_REQUESTS, MAX_CONCURRENCY);
}

static bool parse_ulong(const char *text, unsigned long min, unsigned long max, unsigned long *value)
{
	char *end;

	errno = 0;
	*value = strtoul(text, &end, 10);
	return errno == 0 && end != text && *end == '\0' && *value >= min && *value <= max;
}

static bool parse_options(int argc, char **argv, struct loadgen_options *opts)
{
	static const struct option long_options[] = {
		{ "requests", required_argument, NULL, 'n' },
		{ "warmup", required_argument, NULL, 'u' },
		{ "concurrency", required_argument, NULL, 'c' },
		{ "big-every", required_argument, NULL, 'k' },
		{ "big-items", required_argument, NULL, 'i' },
		{ "balance-every", required_argument, NULL, 'm' },
		{ "gateway-work-us", required_argument, NULL, 'w' },
		{ "account-work-us", required_argument, NULL, 'a' },
		{ "store-work-us", required_argument, NULL, 's' },
		{ "max-seconds", required_argument, NULL, 't' },
		{ "gateway-port", required_argument, NULL, 'g' },
		{ "gateway-host", required_argument, NULL, 'G' },
		{ "store-journal", required_argument, NULL, 'J' },
		{ "store-holder-ms", required_argument, NULL, 'H' },
		{ "store-holder-period-ms", required_argument, NULL, 'P' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long port = 0;
	bool ok = true;
	int c;

	*opts = (struct loadgen_options) { .requests = 200, .warmup = 5, .concurrency = 4, .big_every = 50,
		.big_items = 100, .balance_every = 10, .max_seconds = 120, .gateway_work_us = 200,
		.account_work_us = 200, .store_work_us = 100, .store_holder_period_ms = 300, .gateway_host.s_addr = htonl(INADDR_LOOPBACK) };
	while (ok && (c = getopt_long(argc, argv, "h", long_options, NULL)) != -1) {
		switch (c) {
		case 'n': ok = parse_ulong(optarg, 1, MAX_REQUESTS, &opts->requests); break;
		case 'u': ok = parse_ulong(optarg, 0, 1000, &opts->warmup); break;
		case 'c': ok = parse_ulong(optarg, 1, MAX_CONCURRENCY, &opts->concurrency); break;
		case 'k': ok = parse_ulong(optarg, 1, ULONG_MAX, &opts->big_every); break;
		case 'i': ok = parse_ulong(optarg, 1, 10000, &opts->big_items); break;
		case 'm': ok = parse_ulong(optarg, 1, ULONG_MAX, &opts->balance_every); break;
		case 'w': ok = parse_ulong(optarg, 0, 1000000, &opts->gateway_work_us); break;
		case 'a': ok = parse_ulong(optarg, 0, 1000000, &opts->account_work_us); break;
		case 's': ok = parse_ulong(optarg, 0, 1000000, &opts->store_work_us); break;
		case 't': ok = parse_ulong(optarg, 1, 3600, &opts->max_seconds); break;
		case 'g': ok = parse_ulong(optarg, 1, 65535, &port); break;
		case 'J': opts->store_journal = optarg; break;
		case 'H': ok = parse_ulong(optarg, 0, 60000, &opts->store_holder_ms); break;
		case 'P': ok = parse_ulong(optarg, 1, 60000, &opts->store_holder_period_ms); break;
		case 'G': ok = inet_pton(AF_INET, optarg, &opts->gateway_host) == 1; break;
		case 'o': opts->output = optarg; break;
		case 'h': usage(stdout); exit(0);
		default: ok = false; break;
		}
	}
	if (!ok || optind != argc) {
		if (optarg) {
			fprintf(stderr, "ds-loadgen: bad value '%s'\n", optarg);
		}
		usage(stderr);
		return false;
	}
	if (opts->store_holder_ms >= opts->store_holder_period_ms) {
		fprintf(stderr, "ds-loadgen: --store-holder-ms=%lu must be below --store-holder-period-ms=%lu\n",
			opts->store_holder_ms, opts->store_holder_period_ms);
		return false;
	}
	opts->gateway_port = (uint16_t) port;
	return true;
}

/* Request i: a big (slow) checkout every big_every, else a balance every balance_every. */
static void plan_request(const struct loadgen_options *opts, unsigned long i, struct request_record *rec)
{
	rec->slow = i % opts->big_every == opts->big_every / 2;
	rec->checkout = rec->slow || i % opts->balance_every != opts->balance_every - 1;
	rec->items = rec->slow ? opts->big_items : 1 + i % 3;
}

static void send_request(struct run *run, unsigned long i)
{
	struct request_record *rec = &run->records[i];
	struct deepspan_context context;
	struct http_response resp;
	char path[128];

	plan_request(run->opts, i, rec);
	if (rec->checkout) {
		snprintf(path, sizeof(path), "/checkout?user=%lu&items=%lu", i, rec->items);
	} else {
		snprintf(path, sizeof(path), "/balance?user=%lu", i);
	}
	rec->begin_ns = service_now_ns();
	deepspan_span_start(&rec->span, NULL, "loadgen",
		rec->checkout ? "GET /checkout" : "GET /balance", DEEPSPAN_KIND_CLIENT);
	context = deepspan_span_context(&rec->span);
	rec->ok = http_get_from(run->opts->gateway_host, run->opts->gateway_port, path, &context, &resp) && resp.status == 200;
	deepspan_span_end(&rec->span, rec->ok ? DEEPSPAN_STATUS_OK : DEEPSPAN_STATUS_ERROR);
	rec->end_ns = service_now_ns();
}

/* Sequential small checkouts before the measured run: first connections, threads, page faults. */
static void warm_up(const struct loadgen_options *opts)
{
	for (unsigned long i = 0; i < opts->warmup; i++) {
		struct deepspan_context context;
		struct http_response resp;
		struct deepspan_span span;
		bool ok;

		deepspan_span_start(&span, NULL, "loadgen", "warm-up GET /checkout", DEEPSPAN_KIND_CLIENT);
		context = deepspan_span_context(&span);
		ok = http_get_from(opts->gateway_host, opts->gateway_port, "/checkout?user=0&items=1", &context, &resp) && resp.status == 200;
		deepspan_span_end(&span, ok ? DEEPSPAN_STATUS_OK : DEEPSPAN_STATUS_ERROR);
	}
}

static void *worker(void *arg)
{
	struct run *run = arg;

	for (;;) {
		unsigned long i = __atomic_fetch_add(&run->next, 1, __ATOMIC_RELAXED);

		if (i >= run->opts->requests || service_now_ns() >= run->deadline_ns) {
			break;
		}
		send_request(run, i);
	}
	return NULL;
}

/* The directory of this executable, to find the service programs next to it. */
static bool own_directory(char *dir, size_t size)
{
	ssize_t len = readlink("/proc/self/exe", dir, size - 1);
	char *slash;

	if (len <= 0) {
		return false;
	}
	dir[len] = '\0';
	slash = strrchr(dir, '/');
	if (!slash) {
		return false;
	}
	*slash = '\0';
	return true;
}

static bool spawn(struct child *child, const char *dir, const struct loadgen_options *opts,
		const struct child *account, const struct child *store)
{
	char path[PATH_MAX + 32], fd_arg[32], seconds[32], work[32], ports[2][32], journal[PATH_MAX + 16];
	char holder[2][48];
	char *args[11];
	int n = 0;

	child->listen_fd = http_listen_loopback(0);
	child->port = child->listen_fd >= 0 ? http_socket_port(child->listen_fd) : 0;
	if (child->port == 0) {
		fprintf(stderr, "ds-loadgen: cannot listen for %s: %s\n", child->program, strerror(errno));
		return false;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, child->program);
	snprintf(fd_arg, sizeof(fd_arg), "--listen-fd=%d", child->listen_fd);
	snprintf(seconds, sizeof(seconds), "--max-seconds=%lu", opts->max_seconds + 10);
	snprintf(work, sizeof(work), "--work-us=%lu", strcmp(child->program, "ds-store") == 0 ?
		opts->store_work_us : strcmp(child->program, "ds-account") == 0 ? opts->account_work_us :
		opts->gateway_work_us);
	args[n++] = path;
	args[n++] = fd_arg;
	args[n++] = seconds;
	args[n++] = work;
	if (account && store) {
		snprintf(ports[0], sizeof(ports[0]), "--account-port=%u", account->port);
		snprintf(ports[1], sizeof(ports[1]), "--store-port=%u", store->port);
		args[n++] = ports[0];
		args[n++] = ports[1];
	}
	if (opts->store_journal && strcmp(child->program, "ds-store") == 0) {
		snprintf(journal, sizeof(journal), "--journal=%s", opts->store_journal);
		args[n++] = journal;
	}
	if (opts->store_holder_ms && strcmp(child->program, "ds-store") == 0) {
		snprintf(holder[0], sizeof(holder[0]), "--holder-ms=%lu", opts->store_holder_ms);
		snprintf(holder[1], sizeof(holder[1]), "--holder-period-ms=%lu", opts->store_holder_period_ms);
		args[n++] = holder[0];
		args[n++] = holder[1];
	}
	args[n] = NULL;
	child->pid = fork();
	if (child->pid == 0) {
		fcntl(child->listen_fd, F_SETFD, 0);	/* the service inherits its listening socket */
		execv(path, args);
		fprintf(stderr, "ds-loadgen: cannot run %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	close(child->listen_fd);
	return child->pid > 0;
}

/* Waits (bounded) until every service answers GET /health. */
static bool wait_ready(const struct child *children, uint64_t deadline_ns)
{
	for (int i = 0; i < SERVICE_COUNT; i++) {
		struct http_response resp;

		while (!http_get(children[i].port, "/health", NULL, &resp) || resp.status != 200) {
			if (service_now_ns() >= deadline_ns) {
				fprintf(stderr, "ds-loadgen: %s is not ready\n", children[i].program);
				return false;
			}
			usleep(20000);
		}
	}
	return true;
}

/* SIGTERM, then at most 10 s for each service to exit, then SIGKILL. */
static void stop_children(struct child *children)
{
	for (int i = 0; i < SERVICE_COUNT; i++) {
		if (children[i].pid > 0) {
			kill(children[i].pid, SIGTERM);
		}
	}
	for (int i = 0; i < SERVICE_COUNT; i++) {
		uint64_t deadline = service_now_ns() + UINT64_C(10000000000);

		while (children[i].pid > 0 && waitpid(children[i].pid, NULL, WNOHANG) == 0) {
			if (service_now_ns() >= deadline) {
				kill(children[i].pid, SIGKILL);
				waitpid(children[i].pid, NULL, 0);
				break;
			}
			usleep(10000);
		}
	}
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

static void print_json(FILE *out, const struct run *run, unsigned long done, const struct child *children)
{
	uint64_t *latencies = calloc(done ? done : 1, sizeof(*latencies));
	uint64_t total = 0;

	fprintf(out, "{\"generator\": \"ds-loadgen\", \"clock\": \"CLOCK_MONOTONIC\",\n \"services\": {");
	for (int i = 0; children && i < SERVICE_COUNT; i++) {
		fprintf(out, "%s\"%s\": {\"port\": %u, \"pid\": %d}", i ? ", " : "", children[i].program,
			children[i].port, (int) children[i].pid);
	}
	fprintf(out, "},\n \"loadgen_pid\": %d,\n \"requests\": [\n", (int) getpid());
	for (unsigned long i = 0; i < done; i++) {
		const struct request_record *rec = &run->records[i];

		latencies[i] = rec->end_ns - rec->begin_ns;
		total += latencies[i];
		fprintf(out, "  {\"index\": %lu, \"route\": \"%s\", \"items\": %lu, \"slow\": %s, \"ok\": %s, "
			"\"trace_id_high\": %" PRIu64 ", \"trace_id_low\": %" PRIu64 ", \"span_id\": %" PRIu64 ", "
			"\"begin_ns\": %" PRIu64 ", \"end_ns\": %" PRIu64 ", \"latency_ns\": %" PRIu64 "}%s\n",
			i, rec->checkout ? "/checkout" : "/balance", rec->items, rec->slow ? "true" : "false",
			rec->ok ? "true" : "false", rec->span.context.trace_id_high, rec->span.context.trace_id_low,
			rec->span.context.span_id, rec->begin_ns, rec->end_ns, latencies[i], i + 1 < done ? "," : "");
	}
	qsort(latencies, done, sizeof(*latencies), compare_u64);
	fprintf(out, " ],\n \"summary\": {\"count\": %lu, \"mean_ns\": %" PRIu64 ", \"p50_ns\": %" PRIu64
		", \"p99_ns\": %" PRIu64 ", \"max_ns\": %" PRIu64 "}}\n", done, done ? total / done : 0,
		done ? latencies[done / 2] : 0, done ? latencies[(done * 99) / 100] : 0,
		done ? latencies[done - 1] : 0);
	free(latencies);
}

int main(int argc, char **argv)
{
	struct loadgen_options opts;
	struct child children[SERVICE_COUNT] = { { .program = "ds-account" }, { .program = "ds-store" },
		{ .program = "ds-gateway" } };
	pthread_t threads[MAX_CONCURRENCY];
	struct run run = { 0 };
	unsigned long started = 0, done;
	bool spawned = false;
	char dir[PATH_MAX];
	FILE *out = stdout;
	int status = 1;

	if (!parse_options(argc, argv, &opts)) {
		return 2;
	}
	run.opts = &opts;
	run.deadline_ns = service_now_ns() + (uint64_t) opts.max_seconds * UINT64_C(1000000000);
	run.records = calloc(opts.requests, sizeof(*run.records));
	if (!run.records) {
		goto end;
	}
	if (opts.gateway_port == 0) {
		spawned = true;
		if (!own_directory(dir, sizeof(dir)) || !spawn(&children[0], dir, &opts, NULL, NULL) ||
				!spawn(&children[1], dir, &opts, NULL, NULL) ||
				!spawn(&children[2], dir, &opts, &children[0], &children[1]) ||
				!wait_ready(children, run.deadline_ns)) {
			goto end;
		}
		opts.gateway_port = children[2].port;
	}
	warm_up(&opts);
	for (; started < opts.concurrency; started++) {
		if (pthread_create(&threads[started], NULL, worker, &run) != 0) {
			break;
		}
	}
	for (unsigned long i = 0; i < started; i++) {
		pthread_join(threads[i], NULL);
	}
	done = run.next < opts.requests ? run.next : opts.requests;
	for (unsigned long i = 0; i < done; i++) {
		done = run.records[i].end_ns ? done : i;	/* stopped by the deadline: report the finished prefix */
	}
	if (opts.output && !(out = fopen(opts.output, "w"))) {
		fprintf(stderr, "ds-loadgen: cannot write %s: %s\n", opts.output, strerror(errno));
		goto end;
	}
	print_json(out, &run, done, spawned ? children : NULL);
	status = done == opts.requests ? 0 : 1;
	for (unsigned long i = 0; i < done; i++) {
		status = run.records[i].ok ? status : 1;
	}
end:
	if (out && out != stdout) {
		fclose(out);
	}
	if (spawned) {
		stop_children(children);
	}
	free(run.records);
	return status;
}
