/* SPDX-License-Identifier: MIT */
/*
 * The span API of libdeepspan-ust with no session recording it: ids, parent links, trace-id
 * propagation through traceparent, fresh ids in a forked child.
 */
#include "deepspan-ust.h"
#include "unit.h"

#include <sys/wait.h>
#include <unistd.h>

static void test_tree(void)
{
	struct deepspan_span root, client, server;
	struct deepspan_context parent, received = { 0 };
	char header[DEEPSPAN_TRACEPARENT_SIZE];

	deepspan_span_start(&root, NULL, "gateway", "GET /checkout", DEEPSPAN_KIND_SERVER);
	UNIT_CHECK(root.context.trace_id_high != 0 || root.context.trace_id_low != 0, "a root gets a trace id");
	UNIT_EQ_UINT(root.parent_span_id, 0, "a root has parent 0");
	UNIT_CHECK(root.context.span_id != 0, "a root gets a span id");
	UNIT_EQ_UINT(root.context.trace_flags, DEEPSPAN_TRACE_FLAG_SAMPLED, "a root is sampled");

	parent = deepspan_span_context(&root);
	deepspan_span_start(&client, &parent, "gateway", "call store", DEEPSPAN_KIND_CLIENT);
	UNIT_EQ_UINT(client.context.trace_id_low, root.context.trace_id_low, "child keeps the trace id (low)");
	UNIT_EQ_UINT(client.context.trace_id_high, root.context.trace_id_high, "child keeps the trace id (high)");
	UNIT_EQ_UINT(client.parent_span_id, root.context.span_id, "child's parent is the root");
	UNIT_CHECK(client.context.span_id != root.context.span_id, "child has its own span id");

	/* Across a process boundary. */
	parent = deepspan_span_context(&client);
	UNIT_EQ_INT(deepspan_traceparent_format(&parent, header, sizeof(header)), DEEPSPAN_OK, "format the client context");
	UNIT_EQ_INT(deepspan_traceparent_parse(header, strlen(header), &received), DEEPSPAN_OK, "parse it on the server");
	deepspan_span_start(&server, &received, "store", "Reserve", DEEPSPAN_KIND_SERVER);
	UNIT_EQ_UINT(server.context.trace_id_low, root.context.trace_id_low, "server joins the trace");
	UNIT_EQ_UINT(server.parent_span_id, client.context.span_id, "server's parent is the client span");
	deepspan_span_activate(&server);
	deepspan_span_deactivate(&server);
	deepspan_span_end(&server, DEEPSPAN_STATUS_OK);
	deepspan_span_end(&client, DEEPSPAN_STATUS_OK);
	deepspan_span_end(&root, DEEPSPAN_STATUS_ERROR);

	struct deepspan_context zero = { 0 };
	struct deepspan_span fresh;

	deepspan_span_start(&fresh, &zero, NULL, NULL, DEEPSPAN_KIND_INTERNAL);
	UNIT_CHECK(fresh.context.trace_id_low != root.context.trace_id_low && fresh.parent_span_id == 0,
		"a zero parent context starts a new trace (NULL names accepted)");
	deepspan_span_end(&fresh, DEEPSPAN_STATUS_UNSET);
}

static void test_fork(void)
{
	int pipe_fds[2];
	uint64_t parent_id, child_id = 0;
	pid_t pid;
	int status = 0;

	deepspan_new_span_id();	/* seed this thread's generator before forking */
	if (!UNIT_CHECK(pipe(pipe_fds) == 0, "pipe")) {
		return;
	}
	pid = fork();
	if (pid == 0) {
		uint64_t id = deepspan_new_span_id();

		_exit(write(pipe_fds[1], &id, sizeof(id)) == (ssize_t) sizeof(id) ? 0 : 1);
	}
	parent_id = deepspan_new_span_id();
	UNIT_CHECK(pid > 0 && read(pipe_fds[0], &child_id, sizeof(child_id)) == (ssize_t) sizeof(child_id),
		"child sent its id");
	waitpid(pid, &status, 0);
	UNIT_CHECK(child_id != 0 && child_id != parent_id, "a forked child does not repeat its parent's next id");
	close(pipe_fds[0]);
	close(pipe_fds[1]);
}

int main(void)
{
	test_tree();
	test_fork();
	return unit_finish();
}
