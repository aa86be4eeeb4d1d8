# SPDX-License-Identifier: MIT
"""A gRPC hop in the middle: gateway (HTTP) -> users (@grpc/grpc-js server, installed from the npm registry
into the test cache) -> store (HTTP), gateway calling users with the grpc-js client over one HTTP/2
session, recorded with LTTng.  Every call must be linked both ways (HTTP/2 stream ids keep the
concurrent calls of the session apart) and every external request a whole three-level tree.
"""

import pytest

from test_nodejs_helpers import recorded_demo, assert_demo_trees

REQUESTS = 30
CONCURRENCY = 4


@pytest.fixture(scope="module")
def grpc_demo(tmp_path_factory, plugin_dir):
    return recorded_demo(tmp_path_factory, "gRPC", REQUESTS, CONCURRENCY, packages=("@grpc/grpc-js@1",),
                         env={"DEMO_USERS_GRPC": "1"})


def test_grpc_load_completed(grpc_demo):
    assert grpc_demo["load"]["requests"] == REQUESTS
    assert all(entry["status"] == 200 for entry in grpc_demo["load"]["latencies"])


def test_grpc_counts_equal_requests_times_hops(grpc_demo):
    stats, spans = grpc_demo["stats"], grpc_demo["spans"]
    assert stats["server_requests"] == stats["server_responses"] == 3 * REQUESTS
    assert stats["client_requests"] == stats["client_responses"] == 2 * REQUESTS
    assert stats["clients_with_parent"] == stats["clients_with_callee"] == 2 * REQUESTS
    assert stats["roots"] == REQUESTS and stats["open_at_end"] == 0
    grpc_servers = [s for s in spans.values() if s["operation"] == "HTTP POST /demo.Users/GetUser"]
    assert len(grpc_servers) == REQUESTS
    assert all(spans[s["parent_span_id"]]["kind"] == 2 for s in grpc_servers)


def test_grpc_hop_keeps_the_tree_whole(grpc_demo):
    spans = grpc_demo["spans"]
    for chain in assert_demo_trees(spans, REQUESTS):
        assert chain[1]["operation"].endswith("/demo.Users/GetUser")
        assert all(s["end"] is not None and c["end"] <= s["end"] for s, c in zip(chain, chain[1:]))
