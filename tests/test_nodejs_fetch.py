# SPDX-License-Identifier: MIT
"""A real capture with fetch(): the three-service demo whose gateway and users call with Node's global
fetch() (undici) instead of http.get, recorded with LTTng, then filter.deepspan.nodejs-ctx.

Every fetch must be a client span linked to its parent server request and to the callee's server
span (undici's diagnostics_channel events, doc/nodejs.md), and every external request a
three-level tree, as with http.
"""

import pytest

from test_nodejs_helpers import recorded_demo, assert_demo_trees

REQUESTS = 40
CONCURRENCY = 4


@pytest.fixture(scope="module")
def fetch_demo(tmp_path_factory, plugin_dir):
    return recorded_demo(tmp_path_factory, "fetch", REQUESTS, CONCURRENCY, client="fetch")


def test_fetch_load_completed(fetch_demo):
    load = fetch_demo["load"]
    assert load["requests"] == REQUESTS
    assert all(entry["status"] == 200 for entry in load["latencies"])


def test_fetch_counts_equal_requests_times_hops(fetch_demo):
    stats, spans = fetch_demo["stats"], fetch_demo["spans"]
    assert stats["server_requests"] == stats["server_responses"] == 3 * REQUESTS
    assert stats["client_requests"] == stats["client_responses"] == 2 * REQUESTS
    assert stats["clients_with_parent"] == stats["clients_with_callee"] == 2 * REQUESTS
    assert stats["roots"] == REQUESTS
    assert stats["open_at_end"] == 0 and stats["unmatched_responses"] == 0
    clients = [s for s in spans.values() if s["kind"] == 2]
    servers = [s for s in spans.values() if s["kind"] == 1]
    assert len(clients) == 2 * REQUESTS and len(servers) == 3 * REQUESTS
    callee_of = {s["parent_span_id"]: s for s in servers if s["parent_span_id"]}
    linked = [c for c in clients if c["span_id"] in callee_of
              and spans.get(c["parent_span_id"], {}).get("kind") == 1]
    print(f"{len(clients)} fetch client spans, {len(linked)} linked to parent and callee")
    assert len(linked) == len(clients)
    assert all(callee_of[c["span_id"]]["vpid"] != c["vpid"] for c in clients)


def test_fetch_three_level_trees(fetch_demo):
    spans = fetch_demo["spans"]
    for chain in assert_demo_trees(spans, REQUESTS):
        assert (chain[0]["service"], chain[0]["operation"], chain[0]["kind"]) == ("gateway", "HTTP GET /api", 1)
        assert all(s["begin"] <= c["begin"] for s, c in zip(chain, chain[1:]))
        assert all(s["end"] is not None and c["end"] <= s["end"] for s, c in zip(chain, chain[1:]))


def test_fetch_events_in_time_order(fetch_demo):
    stamps = [ts for ts, *_ in fetch_demo["events"]]
    assert stamps == sorted(stamps)
