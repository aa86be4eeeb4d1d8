/* SPDX-License-Identifier: MIT */
/*
 * A deliberately tiny HTTP/1.0 over loopback TCP for the example services: one request per
 * connection, GET only, headers up to 4 KiB, every read and write bounded by a timeout.
 * Each request carries a W3C `traceparent` header.
 */
#ifndef DEEPSPAN_EXAMPLES_HTTP_H
#define DEEPSPAN_EXAMPLES_HTTP_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "deepspan-ust.h"

#define HTTP_MAX_HEADER 4096
#define HTTP_MAX_BODY 1024
#define HTTP_IO_TIMEOUT_MS 10000

struct http_request {
	char path[256];			/* "/checkout?user=3&items=2" */
	bool has_context;
	struct deepspan_context context;	/* from `traceparent`, when has_context */
};

struct http_response {
	int status;
	char body[HTTP_MAX_BODY];
};

/* A listening TCP socket on 127.0.0.1:port (0 = any free port); -1 on error (errno set). */
int http_listen_loopback(uint16_t port);

/* The same on `address` (another guest's interface in two-host recordings, doc/real-kernels.md). */
int http_listen(struct in_addr address, uint16_t port);

/* The local port of a bound socket; 0 on error. */
uint16_t http_socket_port(int fd);

/* Reads and parses one request from a connected socket; false on a malformed or timed-out request. */
bool http_read_request(int fd, struct http_request *req);

/* Writes a response with `body` and closes nothing. */
bool http_send_response(int fd, int status, const char *body);

/*
 * GETs `path` from 127.0.0.1:port with `context` (may be NULL) as traceparent; fills `resp`.
 * False when the connection or the exchange fails.
 */
bool http_get(uint16_t port, const char *path, const struct deepspan_context *context,
		struct http_response *resp);

/* The same from address:port. */
bool http_get_from(struct in_addr address, uint16_t port, const char *path,
		const struct deepspan_context *context, struct http_response *resp);

/* The value of query parameter `name` in `path` as an unsigned number, or `fallback`. */
unsigned long http_query_ulong(const char *path, const char *name, unsigned long fallback);

/* True when `path` names `route` ("/checkout" matches "/checkout?user=1" but not "/checkouts"). */
bool http_path_is(const char *path, const char *route);

#endif /* DEEPSPAN_EXAMPLES_HTTP_H */
