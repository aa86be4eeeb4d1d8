# SPDX-License-Identifier: MIT
"""How the recorder knows the running request, and what it costs when nothing records (doc/nodejs.md,
"Cost" and "Recording a service").

- Preloaded without a session, the recorder subscribes to none of its diagnostics_channel events
  (Node builds no event message for them); with a session recording vnode:* it subscribes to all.
- Both context modes (DEEPSPAN_VNODE_CONTEXT=store|hooks) on the versions where they are not the
  default (store on Node 20, hooks on Node 22), store with --experimental-async-context-frame on
  Node 22 (what the captures and scripts/deepspan-record give there) and store without it give whole trees on the three-service demo (http and gRPC calls); store mode reports the
  running request only at request events (at most one activation per server request and client
  response).
"""
import json
import os
import subprocess
import uuid

import pytest

from conftest import run_babeltrace2
from test_nodejs_helpers import (ADDON, RECORDER, capture_unavailable, node_binary, recorded_demo, assert_demo_trees,
                                 services_node)

# The recorder's channels (HTTP/1 both sides, TCP clients, undici).
CHANNELS = ["http.server.request.start", "http.server.response.finish", "http.client.request.start",
            "http.client.response.finish", "net.client.socket", "undici:request:create",
            "undici:client:sendHeaders", "undici:request:headers", "undici:request:error"]
PROBE = ("setTimeout(() => { const dc = require('diagnostics_channel'); "
         f"const names = {json.dumps(CHANNELS)}; "
         "process.stdout.write(JSON.stringify(names.map((n) => dc.hasSubscribers(n)))); }, 400)")


def subscribed(env=None):
    proc = subprocess.run([services_node(), "-r", str(RECORDER), "-e", PROBE], capture_output=True, text=True,
                          timeout=60, env=dict(os.environ, **(env or {})))
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def someone_records():
    """Whether a session of this machine records vnode:async_context now (the recorder follows it)."""
    proc = subprocess.run([services_node(), "-e", f"process.stdout.write(String(require({json.dumps(str(ADDON))})"
                           ".tracing()))"], capture_output=True, text=True, timeout=60)
    return proc.stdout == "true"


def test_nothing_subscribed_without_a_session():
    if not ADDON.exists():
        pytest.skip(f"{ADDON} is missing: build with the instrumentation")
    if someone_records():
        pytest.skip("a session of this machine records vnode:* now: the recorder follows it")
    assert subscribed() == [False] * len(CHANNELS)


def test_everything_subscribed_while_a_session_records(tmp_path):
    reason = capture_unavailable()
    if reason:
        pytest.skip(reason)
    session = f"deepspan-nodejs-sub-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    subprocess.run(["lttng", "create", session, f"--output={tmp_path / 'trace'}"], check=True, capture_output=True)
    try:
        subprocess.run(["lttng", "enable-event", "-u", "vnode:*", "-s", session], check=True, capture_output=True)
        subprocess.run(["lttng", "start", session], check=True, capture_output=True)
        assert subscribed() == [True] * len(CHANNELS)
    finally:
        subprocess.run(["lttng", "destroy", session], capture_output=True)


MODES = {
    ("18", "hooks"): {"DEEPSPAN_VNODE_CONTEXT": "hooks"},
    ("20", "store"): {"DEEPSPAN_VNODE_CONTEXT": "store"},
    ("20", "hooks"): {"DEEPSPAN_VNODE_CONTEXT": "hooks"},
    ("22", "hooks"): {"DEEPSPAN_VNODE_CONTEXT": "hooks"},
    ("22", "store-acf"): {"NODE_OPTIONS": "--experimental-async-context-frame"},
    # Store mode without the flag (which the captures add on Node >= 22.7 as deepspan-record does).
    ("22", "store-no-acf"): {"NODE_OPTIONS": ""},
}
REQUESTS = 20
CONCURRENCY = 4


def raw_phases(trace):
    """Counts of vnode:async_context events per phase in the raw trace, a `before` folded into an HTTP
    event (its `runs_id` >= 0) counted as one."""
    counts = {}
    for line in run_babeltrace2(trace).stdout.splitlines():
        if "vnode:async_context" in line:
            phase = line.split('phase = "', 1)[1].split('"', 1)[0]
            counts[phase] = counts.get(phase, 0) + 1
        elif "vnode:http_" in line and "runs_id = " in line and "runs_id = -" not in line:
            counts["before"] = counts.get("before", 0) + 1
            counts["folded"] = counts.get("folded", 0) + 1
    return counts


@pytest.mark.parametrize("kind", ["http", "grpc"])
@pytest.mark.parametrize("version,mode", sorted(MODES))
def test_context_mode_gives_whole_trees(version, mode, kind, tmp_path_factory, plugin_dir):
    node, why = node_binary(version)
    if why:
        pytest.skip(why)
    env = dict(MODES[(version, mode)])
    extra = {"packages": ("@grpc/grpc-js@1",)} if kind == "grpc" else {}
    if kind == "grpc":
        env["DEMO_USERS_GRPC"] = "1"
    demo = recorded_demo(tmp_path_factory, f"node{version}-{mode}-{kind}", REQUESTS, CONCURRENCY, node=node,
                         env=env, **extra)
    stats, spans, events = demo["stats"], demo["spans"], demo["events"]
    assert stats["server_requests"] == stats["server_responses"] == 3 * REQUESTS
    assert stats["clients_with_parent"] == stats["clients_with_callee"] == 2 * REQUESTS
    assert stats["roots"] == REQUESTS and stats["open_at_end"] == 0
    assert_demo_trees(spans, REQUESTS, one_trace=False)
    # Activations: every server span runs at least once, at most one span is active per process.
    activated = {payload["span_id"] for _, name, _, payload in events if name == "span_activate"}
    assert {s["span_id"] for s in spans.values() if s["kind"] == 1} <= activated
    active = {}
    for _, name, context, payload in events:
        if name == "span_activate":
            assert active.get(context["vpid"]) is None
            active[context["vpid"]] = payload["span_id"]
        elif name == "span_deactivate" and active.get(context["vpid"]) == payload["span_id"]:
            active[context["vpid"]] = None
    phases = raw_phases(demo["trace"])
    print(f"Node {version} {mode} {kind}: vnode:async_context phases {phases}")
    assert phases.get("before", 0) == phases.get("after", 0)
    if mode.startswith("store") and kind == "http":
        # One activation per server request and per client response, none per callback.
        assert phases.get("before", 0) <= 5 * REQUESTS
        # Each server request's and each client response's `before` is folded into its event.
        assert phases.get("folded", 0) >= 3 * REQUESTS
