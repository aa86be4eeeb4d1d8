/* SPDX-License-Identifier: MIT */
/*
 * LTTng-UST tracepoint provider `vnode`: the Node.js events of DESIGN.md §3.3,
 * fired by the deepspan_vnode N-API addon (deepspan-vnode.c).
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER vnode

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./vnode-tp.h"

#if !defined(DEEPSPAN_VNODE_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define DEEPSPAN_VNODE_TP_H

#include <stdint.h>
#include <lttng/tracepoint.h>

/*
 * An HTTP request seen by a server (incoming) or a client (outgoing); stream_id: the
 * HTTP/2 stream on its connection (0: HTTP/1, TCP); runs_id (both classes): the request
 * whose code runs from this event on (its `before` folded into the event, after the
 * running one's `after`), -1 none.
 */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(vnode, http_request_class,
	LTTNG_UST_TP_ARGS(int, sockid, int64_t, sock_async_id, int64_t, ctx_id,
		const char *, method, const char *, url, const char *, address,
		int, port, int, local_port, int, stream_id, int64_t, runs_id),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(int, sockid, sockid)
		lttng_ust_field_integer(int64_t, sock_async_id, sock_async_id)
		lttng_ust_field_integer(int64_t, ctx_id, ctx_id)
		lttng_ust_field_string(method, method)
		lttng_ust_field_string(url, url)
		lttng_ust_field_string(address, address)
		lttng_ust_field_integer(int, port, port)
		lttng_ust_field_integer(int, local_port, local_port)
		lttng_ust_field_integer(int, stream_id, stream_id)
		lttng_ust_field_integer(int64_t, runs_id, runs_id)
	)
)

/* The end of an HTTP exchange (server: response finished; client: response received). */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(vnode, http_response_class,
	LTTNG_UST_TP_ARGS(int, sockid, int64_t, sock_async_id, int64_t, ctx_id,
		int, status, const char *, address, int, port, int, local_port, int64_t, runs_id),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(int, sockid, sockid)
		lttng_ust_field_integer(int64_t, sock_async_id, sock_async_id)
		lttng_ust_field_integer(int64_t, ctx_id, ctx_id)
		lttng_ust_field_integer(int, status, status)
		lttng_ust_field_string(address, address)
		lttng_ust_field_integer(int, port, port)
		lttng_ust_field_integer(int, local_port, local_port)
		lttng_ust_field_integer(int64_t, runs_id, runs_id)
	)
)

LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(vnode, http_request_class, vnode, http_server_request,
	LTTNG_UST_TP_ARGS(int, sockid, int64_t, sock_async_id, int64_t, ctx_id,
		const char *, method, const char *, url, const char *, address,
		int, port, int, local_port, int, stream_id, int64_t, runs_id))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(vnode, http_request_class, vnode, http_client_request,
	LTTNG_UST_TP_ARGS(int, sockid, int64_t, sock_async_id, int64_t, ctx_id,
		const char *, method, const char *, url, const char *, address,
		int, port, int, local_port, int, stream_id, int64_t, runs_id))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(vnode, http_response_class, vnode, http_server_response,
	LTTNG_UST_TP_ARGS(int, sockid, int64_t, sock_async_id, int64_t, ctx_id,
		int, status, const char *, address, int, port, int, local_port, int64_t, runs_id))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(vnode, http_response_class, vnode, http_client_response,
	LTTNG_UST_TP_ARGS(int, sockid, int64_t, sock_async_id, int64_t, ctx_id,
		int, status, const char *, address, int, port, int, local_port, int64_t, runs_id))

/* One async_hooks callback: phase constructor (init), before, after or destroy. */
LTTNG_UST_TRACEPOINT_EVENT(vnode, async_context,
	LTTNG_UST_TP_ARGS(int64_t, id, int64_t, ctx_id, int64_t, exec_id,
		const char *, type, const char *, phase),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(int64_t, id, id)
		lttng_ust_field_integer(int64_t, ctx_id, ctx_id)
		lttng_ust_field_integer(int64_t, exec_id, exec_id)
		lttng_ust_field_string(type, type)
		lttng_ust_field_string(phase, phase)
	)
)

#endif /* DEEPSPAN_VNODE_TP_H */

#include <lttng/tracepoint-event.h>
