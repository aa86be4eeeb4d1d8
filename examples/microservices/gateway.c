/* SPDX-License-Identifier: MIT */
/*
 * ds-gateway: the front door. GET /checkout?user=U&items=N asks the account service for the
 * user, prices the cart (--work-us of CPU per item, an internal span), then asks the store to
 * reserve N items; GET /balance?user=U asks the account service only.
 * Each incoming request is a server span; each outgoing call is a client span whose context
 * travels in the `traceparent` header.
 */
#include <stdio.h>

#include "service.h"

#define SERVICE_NAME "gateway"

/* One outgoing call inside `parent`: a client span around the HTTP exchange. */
static bool call(const struct deepspan_span *parent, const char *operation, struct in_addr host,
		uint16_t port, const char *path, struct http_response *resp)
{
	struct deepspan_context context = deepspan_span_context(parent);
	struct deepspan_span span;
	bool ok;

	deepspan_span_start(&span, &context, SERVICE_NAME, operation, DEEPSPAN_KIND_CLIENT);
	context = deepspan_span_context(&span);
	ok = http_get_from(host, port, path, &context, resp) && resp->status == 200;
	deepspan_span_end(&span, ok ? DEEPSPAN_STATUS_OK : DEEPSPAN_STATUS_ERROR);
	return ok;
}

static void handle(int fd, const struct http_request *req, const struct service_options *opts)
{
	bool checkout = http_path_is(req->path, "/checkout");
	unsigned long user = http_query_ulong(req->path, "user", 0);
	unsigned long items = http_query_ulong(req->path, "items", 1);
	struct http_response resp;
	struct deepspan_span span;
	char path[128], body[256];
	bool ok;

	if (!checkout && !http_path_is(req->path, "/balance")) {
		http_send_response(fd, 404, "no such route\n");
		return;
	}
	deepspan_span_start(&span, req->has_context ? &req->context : NULL, SERVICE_NAME,
		checkout ? "HTTP GET /checkout" : "HTTP GET /balance", DEEPSPAN_KIND_SERVER);
	snprintf(path, sizeof(path), "/account?user=%lu", user);
	ok = call(&span, "GET account", opts->account_host, opts->account_port, path, &resp);
	if (ok && checkout) {
		struct deepspan_context context = deepspan_span_context(&span);
		struct deepspan_span price;

		deepspan_span_start(&price, &context, SERVICE_NAME, "price cart", DEEPSPAN_KIND_INTERNAL);
		service_busy_wait_ns((uint64_t) items * opts->work_us * 1000);
		deepspan_span_end(&price, DEEPSPAN_STATUS_OK);
		snprintf(path, sizeof(path), "/reserve?user=%lu&items=%lu", user, items);
		ok = call(&span, "GET store/reserve", opts->store_host, opts->store_port, path, &resp);
	}
	snprintf(body, sizeof(body), "{\"user\":%lu,\"ok\":%s}\n", user, ok ? "true" : "false");
	deepspan_span_end(&span, ok ? DEEPSPAN_STATUS_OK : DEEPSPAN_STATUS_ERROR);
	http_send_response(fd, ok ? 200 : 502, body);
}

int main(int argc, char **argv)
{
	return service_main("ds-gateway", argc, argv, handle);
}
