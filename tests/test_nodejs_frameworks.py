# SPDX-License-Identifier: MIT
"""The npm frameworks people use, from the npm registry (test cache): store a fastify app, users an express
app calling store with axios, gateway an express app calling users with axios (keep-alive agents),
recorded with LTTng.  Counts equal requests x hops, every tree has three levels, and the server
operations are the frameworks' route templates (`/user/:id/:tab`, `/item/:id/:kind`): one operation
per route although the paths differ in ids and in words that no id normalisation would merge; the
client spans, which know no route, have the normalised paths (doc/nodejs.md, "Operation names").
"""

import pytest

from conftest import run_babeltrace2
from test_nodejs_helpers import recorded_demo, assert_demo_trees

REQUESTS = 40
CONCURRENCY = 4


@pytest.fixture(scope="module")
def frameworks_demo(tmp_path_factory, plugin_dir):
    return recorded_demo(tmp_path_factory, "express/axios/fastify", REQUESTS, CONCURRENCY,
                         packages=("express@4", "axios@1", "fastify@4"), env={"DEMO_FRAMEWORKS": "1"})


def test_frameworks_load_completed(frameworks_demo):
    assert frameworks_demo["load"]["requests"] == REQUESTS
    assert all(entry["status"] == 200 for entry in frameworks_demo["load"]["latencies"])


def test_frameworks_counts_equal_requests_times_hops(frameworks_demo):
    stats = frameworks_demo["stats"]
    assert stats["server_requests"] == stats["server_responses"] == 3 * REQUESTS
    assert stats["client_requests"] == stats["client_responses"] == 2 * REQUESTS
    assert stats["clients_with_parent"] == stats["clients_with_callee"] == 2 * REQUESTS
    assert stats["roots"] == REQUESTS and stats["open_at_end"] == 0


def test_frameworks_one_operation_per_route(frameworks_demo):
    spans = frameworks_demo["spans"]
    servers = {(s["service"], s["operation"]) for s in spans.values() if s["kind"] == 1}
    clients = {(s["service"], s["operation"].split("/", 1)[1]) for s in spans.values() if s["kind"] == 2}
    print(f"server operations: {sorted(servers)}; client operations: {sorted(clients)}")
    assert servers == {("gateway", "HTTP GET /api"), ("users", "HTTP GET /user/:id/:tab"),
                       ("store", "HTTP GET /item/:id/:kind")}
    assert clients == {("gateway", "user/:id/bio"), ("gateway", "user/:id/posts"),
                       ("gateway", "user/:id/friends"), ("users", "item/:id/book"), ("users", "item/:id/pen")}


def test_frameworks_metrics_one_row_per_route(frameworks_demo):
    """sink.deepspan.metrics by=operation: one row per server route (express, fastify), each counting
    every request of the route."""
    proc = run_babeltrace2(frameworks_demo["trace"], "-c", "filter.deepspan.nodejs-ctx",
                           "-c", "filter.deepspan.span-attrib", "-p", "pass-through=false",
                           "-c", "sink.deepspan.metrics", "-p", 'by="operation",format="csv"')
    rows = [line.split(",") for line in proc.stdout.strip().splitlines()]
    header, rows = rows[0], rows[1:]
    print("\n".join(",".join(row) for row in [header] + rows))
    service, operation, count = header.index("service"), header.index("operation"), header.index("count")
    servers = {(row[service], row[operation]): int(row[count]) for row in rows
               if row[operation].startswith("HTTP GET /")}
    assert servers == {("gateway", "HTTP GET /api"): REQUESTS, ("users", "HTTP GET /user/:id/:tab"): REQUESTS,
                       ("store", "HTTP GET /item/:id/:kind"): REQUESTS}


def test_frameworks_three_level_trees(frameworks_demo):
    spans = frameworks_demo["spans"]
    assert_demo_trees(spans, REQUESTS)
