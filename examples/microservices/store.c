/*
 * ds-store: GET /reserve?user=U&items=N — reserves N items under one global inventory lock,
 * spending --work-us of CPU per item while holding it. A big cart therefore holds the lock
 * too long: it is slow itself and delays every reservation queued behind it (the classic
 * "lock held too long" that deepspan shows as Waited blocked on futex in the waiters).
 */
#include <pthread.h>
#include <stdio.h>

#include "service.h"

#define SERVICE_NAME "store"
#define MAX_ITEMS 10000

static pthread_mutex_t inventory_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long reserved_items;	/* guarded by inventory_lock */

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
	pthread_mutex_unlock(&inventory_lock);
	deepspan_span_end(&reserve, DEEPSPAN_STATUS_OK);
	snprintf(body, sizeof(body), "{\"reserved\":%lu,\"total\":%lu}\n", items, total);
	deepspan_span_end(&span, DEEPSPAN_STATUS_OK);
	http_send_response(fd, 200, body);
}

int main(int argc, char **argv)
{
	return service_main("ds-store", argc, argv, handle);
}
