# SPDX-License-Identifier: MIT
"""Outgoing TCP that is not HTTP: the demo's users runs one Redis INCR per request (npm package `redis`,
installed from the npm registry into the test cache) against a Debian redis-server on 127.0.0.1,
recorded with LTTng.  Every INCR must be a client span `TCP 127.0.0.1:PORT` under users' server
span, so its time is on the request's critical path; the HTTP tree stays whole.
"""
import shutil

import pytest

from test_nodejs_helpers import RedisServer, capture_unavailable, capture_with_server, npm_modules

REQUESTS = 30
CONCURRENCY = 4


@pytest.fixture(scope="module")
def redis_demo(tmp_path_factory, plugin_dir):
    reason = capture_unavailable()
    if reason:
        pytest.skip(reason)
    if not shutil.which("redis-server"):
        pytest.skip("redis-server is not installed (Debian package redis-server; scripts/dev setup installs it)")
    modules, reason = npm_modules("redis@4")
    if reason:
        pytest.skip(reason)
    out = tmp_path_factory.mktemp("nodejs-redis")
    with RedisServer(out) as redis:
        return capture_with_server(out, "redis", REQUESTS, CONCURRENCY,
                                   {"DEMO_REDIS_PORT": str(redis.port), "NODE_PATH": str(modules)}, redis.port)


def test_redis_load_completed(redis_demo):
    assert redis_demo["load"]["requests"] == REQUESTS
    assert all(entry["status"] == 200 for entry in redis_demo["load"]["latencies"])


def test_every_redis_call_is_a_client_span_of_its_request(redis_demo):
    spans, port = redis_demo["spans"], redis_demo["port"]
    every = [s for s in spans.values() if s["operation"] == f"TCP 127.0.0.1:{port}"]
    # node-redis sends its own commands when it connects (before any request): roots.
    tcp = [s for s in every if s["parent_span_id"] != 0]
    print(f"{len(every)} TCP client spans to redis, {len(tcp)} inside requests")
    assert len(tcp) == REQUESTS
    assert len(every) - len(tcp) <= 3
    for call in tcp:
        parent = spans[call["parent_span_id"]]
        assert call["kind"] == 2 and call["service"] == "users"
        assert (parent["service"], parent["operation"], parent["kind"]) == ("users", "HTTP GET /user", 1)
        assert call["trace_id_low"] == parent["trace_id_low"]
        assert parent["begin"] <= call["begin"] and call["end"] is not None
        assert call["end"] <= parent["end"]


def test_http_tree_whole_with_redis(redis_demo):
    spans, stats = redis_demo["spans"], redis_demo["stats"]
    # 2 HTTP hops + 1 Redis call per request (+ the connection's setup commands, roots); the
    # Redis calls have no recorded callee.
    setup = stats["client_requests"] - 3 * REQUESTS
    assert 0 <= setup <= 3
    assert stats["client_responses"] == stats["client_requests"]
    assert stats["clients_with_parent"] == 3 * REQUESTS
    assert stats["clients_with_callee"] == 2 * REQUESTS
    assert stats["roots"] == REQUESTS + setup and stats["open_at_end"] == 0
    users_servers = [s for s in spans.values() if s["kind"] == 1 and s["service"] == "users"]
    assert len(users_servers) == REQUESTS
    for server in users_servers:
        kids = sorted(s["operation"].split(" ")[0] for s in spans.values()
                      if s["parent_span_id"] == server["span_id"] and s["kind"] == 2)
        assert kids == ["HTTP", "TCP"]
