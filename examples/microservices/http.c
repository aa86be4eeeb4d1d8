/* SPDX-License-Identifier: MIT */
/* Tiny HTTP/1.0 client and server helpers for the example services (see http.h). */
#define _GNU_SOURCE
#include "http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

int http_listen_loopback(uint16_t port)
{
	return http_listen((struct in_addr) { .s_addr = htonl(INADDR_LOOPBACK) }, port);
}

int http_listen(struct in_addr address, uint16_t port)
{
	struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons(port), .sin_addr = address };
	int one = 1;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0) {
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *) &addr, sizeof(addr)) != 0 || listen(fd, 128) != 0) {
		int saved = errno;

		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

uint16_t http_socket_port(int fd)
{
	struct sockaddr_in addr;
	socklen_t len = sizeof(addr);

	if (getsockname(fd, (struct sockaddr *) &addr, &len) != 0 || addr.sin_family != AF_INET) {
		return 0;
	}
	return ntohs(addr.sin_port);
}

static void set_timeouts(int fd)
{
	struct timeval tv = { .tv_sec = HTTP_IO_TIMEOUT_MS / 1000 };
	int one = 1;

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static bool write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			return false;
		}
		buf += n;
		len -= (size_t) n;
	}
	return true;
}

/* Reads until `terminator` is seen (when not NULL) or EOF, at most size-1 bytes; NUL-terminates. */
static ssize_t read_until(int fd, char *buf, size_t size, const char *terminator)
{
	size_t used = 0;

	while (used + 1 < size) {
		ssize_t n = recv(fd, buf + used, size - 1 - used, 0);

		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n < 0) {
			return -1;
		}
		if (n == 0) {
			break;
		}
		used += (size_t) n;
		buf[used] = '\0';
		if (terminator && strstr(buf, terminator)) {
			break;
		}
	}
	buf[used] = '\0';
	return (ssize_t) used;
}

/* The value of header `name` in the header block `headers` (copied, trimmed), or false. */
static bool find_header(const char *headers, const char *name, char *value, size_t size)
{
	size_t name_len = strlen(name);

	for (const char *line = strstr(headers, "\r\n"); line; line = strstr(line + 2, "\r\n")) {
		const char *start = line + 2, *end = strstr(start, "\r\n");

		if (!end || end == start) {
			break;
		}
		if ((size_t) (end - start) > name_len && strncasecmp(start, name, name_len) == 0 &&
				start[name_len] == ':') {
			size_t len = (size_t) (end - start) - name_len - 1;

			if (len >= size) {
				return false;
			}
			memcpy(value, start + name_len + 1, len);
			value[len] = '\0';
			return true;
		}
	}
	return false;
}

bool http_read_request(int fd, struct http_request *req)
{
	char buf[HTTP_MAX_HEADER];
	char value[128];
	const char *path, *path_end;

	set_timeouts(fd);
	if (read_until(fd, buf, sizeof(buf), "\r\n\r\n") <= 0 || !strstr(buf, "\r\n\r\n") ||
			strncmp(buf, "GET ", 4) != 0) {
		return false;
	}
	path = buf + 4;
	path_end = strchr(path, ' ');
	if (!path_end || (size_t) (path_end - path) >= sizeof(req->path)) {
		return false;
	}
	memcpy(req->path, path, (size_t) (path_end - path));
	req->path[path_end - path] = '\0';
	req->has_context = find_header(buf, "traceparent", value, sizeof(value)) &&
		deepspan_traceparent_parse(value, strlen(value), &req->context) == DEEPSPAN_OK;
	return true;
}

bool http_send_response(int fd, int status, const char *body)
{
	char head[128];
	size_t body_len = strlen(body);
	int len = snprintf(head, sizeof(head), "HTTP/1.0 %d %s\r\nContent-Length: %zu\r\n\r\n",
		status, status == 200 ? "OK" : "Error", body_len);

	return len > 0 && write_all(fd, head, (size_t) len) && write_all(fd, body, body_len);
}

static bool parse_response(const char *text, struct http_response *resp)
{
	const char *body = strstr(text, "\r\n\r\n");

	if (sscanf(text, "HTTP/1.%*d %d", &resp->status) != 1 || !body) {
		return false;
	}
	snprintf(resp->body, sizeof(resp->body), "%s", body + 4);
	return true;
}

bool http_get(uint16_t port, const char *path, const struct deepspan_context *context,
		struct http_response *resp)
{
	return http_get_from((struct in_addr) { .s_addr = htonl(INADDR_LOOPBACK) }, port, path, context, resp);
}

bool http_get_from(struct in_addr address, uint16_t port, const char *path,
		const struct deepspan_context *context, struct http_response *resp)
{
	struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons(port), .sin_addr = address };
	char host[INET_ADDRSTRLEN] = "127.0.0.1";
	char traceparent[DEEPSPAN_TRACEPARENT_SIZE] = "";
	char request[512], reply[HTTP_MAX_HEADER + HTTP_MAX_BODY];
	bool ok = false;
	int len, fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0) {
		return false;
	}
	set_timeouts(fd);
	if (context && deepspan_traceparent_format(context, traceparent, sizeof(traceparent)) != DEEPSPAN_OK) {
		traceparent[0] = '\0';
	}
	inet_ntop(AF_INET, &address, host, sizeof(host));
	len = snprintf(request, sizeof(request), "GET %s HTTP/1.0\r\nHost: %s:%u\r\n%s%s%s\r\n",
		path, host, (unsigned int) port, traceparent[0] ? "traceparent: " : "", traceparent,
		traceparent[0] ? "\r\n" : "");
	if (len <= 0 || (size_t) len >= sizeof(request)) {
		goto end;
	}
	if (connect(fd, (struct sockaddr *) &addr, sizeof(addr)) != 0 ||
			!write_all(fd, request, (size_t) len) ||
			read_until(fd, reply, sizeof(reply), NULL) <= 0) {
		goto end;
	}
	ok = parse_response(reply, resp);
end:
	close(fd);
	return ok;
}

unsigned long http_query_ulong(const char *path, const char *name, unsigned long fallback)
{
	const char *query = strchr(path, '?');
	size_t name_len = strlen(name);

	for (const char *p = query; p; p = strchr(p + 1, '&')) {
		if (strncmp(p + 1, name, name_len) == 0 && p[1 + name_len] == '=') {
			char *end;
			unsigned long value = strtoul(p + 2 + name_len, &end, 10);

			return end == p + 2 + name_len ? fallback : value;
		}
	}
	return fallback;
}

bool http_path_is(const char *path, const char *route)
{
	size_t len = strlen(route);

	return strncmp(path, route, len) == 0 && (path[len] == '\0' || path[len] == '?');
}
