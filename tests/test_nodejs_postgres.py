# SPDX-License-Identifier: MIT
"""A PostgreSQL client inside a request: the demo's users runs one query (`SELECT 1`, npm package `pg`
from the npm registry) per request against a Debian PostgreSQL cluster that the test makes with
initdb and starts on 127.0.0.1 (stopped after), recorded with LTTng.  users queries through a
pg.Pool whose connections are all open before it serves (a query queued behind a busy connection
would be written outside its request: doc/nodejs.md, Limits).  Every query must be a client span
`TCP 127.0.0.1:PORT` (named by the server's address and port, like the Redis calls) under users'
server span, so its time is on the request's critical path; the HTTP tree stays whole.
"""

import pytest

from test_nodejs_helpers import (PostgresServer, capture_unavailable, capture_with_server, npm_modules,
                                 postgres_unavailable)

REQUESTS = 30
CONCURRENCY = 4
PG_POOL = 8  # the demo's pg.Pool, all connected before users serves (instrumentation/nodejs/demo/service.js)


@pytest.fixture(scope="module")
def pg_demo(tmp_path_factory, plugin_dir):
    reason = capture_unavailable() or postgres_unavailable()
    if reason:
        pytest.skip(reason)
    modules, reason = npm_modules("pg@8")
    if reason:
        pytest.skip(reason)
    out = tmp_path_factory.mktemp("nodejs-postgres")
    with PostgresServer() as postgres:
        return capture_with_server(out, "postgres", REQUESTS, CONCURRENCY,
                                   {"DEMO_PG_PORT": str(postgres.port), "NODE_PATH": str(modules)}, postgres.port)


def test_postgres_load_completed(pg_demo):
    assert pg_demo["load"]["requests"] == REQUESTS
    assert all(entry["status"] == 200 for entry in pg_demo["load"]["latencies"])


def test_every_query_is_a_client_span_of_its_request(pg_demo):
    spans, port = pg_demo["spans"], pg_demo["port"]
    every = [s for s in spans.values() if s["operation"] == f"TCP 127.0.0.1:{port}"]
    # pg's start-up messages of the pool's connections, written before any request: roots.
    queries = [s for s in every if s["parent_span_id"] != 0]
    print(f"{len(every)} TCP client spans to PostgreSQL, {len(queries)} inside requests")
    assert len(queries) == REQUESTS
    assert len(every) - len(queries) <= 2 * PG_POOL
    for call in queries:
        parent = spans[call["parent_span_id"]]
        assert call["kind"] == 2 and call["service"] == "users"
        assert (parent["service"], parent["operation"], parent["kind"]) == ("users", "HTTP GET /user", 1)
        assert call["trace_id_low"] == parent["trace_id_low"]
        assert parent["begin"] <= call["begin"] < call["end"] <= parent["end"]


def test_http_tree_whole_with_postgres(pg_demo):
    spans, stats = pg_demo["spans"], pg_demo["stats"]
    setup = stats["client_requests"] - 3 * REQUESTS
    assert 0 <= setup <= 2 * PG_POOL
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
