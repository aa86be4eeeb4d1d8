/* SPDX-License-Identifier: MIT */
/*
 * ds-account: GET /account?user=U — checks the user's token (an internal span: --work-us of
 * CPU, a busy loop) and answers with the account.
 */
#include <stdio.h>

#include "service.h"

#define SERVICE_NAME "account"

static void handle(int fd, const struct http_request *req, const struct service_options *opts)
{
	unsigned long user = http_query_ulong(req->path, "user", 0);
	struct deepspan_span span, check;
	struct deepspan_context context;
	char body[128];

	if (!http_path_is(req->path, "/account")) {
		http_send_response(fd, 404, "no such route\n");
		return;
	}
	deepspan_span_start(&span, req->has_context ? &req->context : NULL, SERVICE_NAME,
		"GET /account", DEEPSPAN_KIND_SERVER);
	context = deepspan_span_context(&span);
	deepspan_span_start(&check, &context, SERVICE_NAME, "verify token", DEEPSPAN_KIND_INTERNAL);
	service_busy_wait_ns((uint64_t) opts->work_us * 1000);
	deepspan_span_end(&check, DEEPSPAN_STATUS_OK);
	snprintf(body, sizeof(body), "{\"user\":%lu,\"tier\":\"%s\"}\n", user, user % 3 ? "basic" : "gold");
	deepspan_span_end(&span, DEEPSPAN_STATUS_OK);
	http_send_response(fd, 200, body);
}

int main(int argc, char **argv)
{
	return service_main("ds-account", argc, argv, handle);
}
