# SPDX-License-Identifier: MIT
"""Recording only the Node.js services meant: `scripts/deepspan-record --node-services` (an LTTng filter on
the process name) and the recorder's switch DEEPSPAN_VNODE=0 (doc/nodejs.md, "Recording only the
services meant"), and the Node.js option it gives the services on Node 22 ("Recording a service")."""
import json
import os
import subprocess

import pytest

from conftest import SRC_DIR, run_babeltrace2
from test_nodejs_helpers import (RECORDER, capture_unavailable, node_binary, read_spans, assert_demo_trees,
                                 services_node)

RECORD = SRC_DIR / "scripts" / "deepspan-record"
# A little HTTP work (the recorder reports requests, not every async resource): a server on
# 127.0.0.1 and 4 requests to it, 100 ms apart (no single quotes: the script is quoted for sh).
WORK = ("const http = require(\"http\"); const s = http.createServer((q, r) => r.end(\"x\")); "
        "s.listen(0, \"127.0.0.1\", () => { let n = 0; const go = () => http.get({ host: \"127.0.0.1\", "
        "port: s.address().port }, (r) => { r.resume(); r.on(\"end\", () => { if (++n < 4) setTimeout(go, 100); "
        "else s.close(); }); }); go(); });")


def procnames_with_vnode_events(trace_dir):
    proc = run_babeltrace2(trace_dir)
    names = {}
    for line in proc.stdout.splitlines():
        if " vnode:" in line and 'procname = "' in line:
            name = line.split('procname = "', 1)[1].split('"', 1)[0]
            names[name] = names.get(name, 0) + 1
    return names


def test_node_services_records_only_the_named_processes(tmp_path):
    reason = capture_unavailable()
    if reason:
        pytest.skip(reason)
    script = (f"DEEPSPAN_SERVICE=keepme {services_node()} -r {RECORDER} -e '{WORK}' & "
              f"DEEPSPAN_SERVICE=dropme {services_node()} -r {RECORDER} -e '{WORK}' & "
              f"DEEPSPAN_VNODE=0 DEEPSPAN_SERVICE=switched {services_node()} -r {RECORDER} -e '{WORK}' & wait")
    trace = tmp_path / "trace"
    proc = subprocess.run([str(RECORD), "--no-kernel", "-q", "--node-services", "keepme,other",
                           "-o", str(trace), "--", "sh", "-c", script],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    names = procnames_with_vnode_events(trace)
    print(f"vnode events by process: {names}")
    assert names.get("keepme", 0) > 0
    assert "dropme" not in names and "switched" not in names


def test_node_services_rejects_bad_names(tmp_path):
    proc = subprocess.run([str(RECORD), "--node-services", "users,a very long name here", "-o",
                           str(tmp_path / "t"), "--", "true"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "--node-services 'users,a very long name here': expected process names" in proc.stderr


# COMMAND of deepspan-record below: the three-service demo (the PATH's node), 20 requests, 4 in flight;
# writes the NODE_OPTIONS each service process got (its /proc/PID/environ) to argv[1].
DEMO_DRIVER = r"""
import json, pathlib, shutil, sys
sys.path.insert(0, sys.argv[2])
import test_nodejs_helpers as helpers
got = {}
def started(procs):
    for role, proc in zip(("store", "users", "gateway"), procs):
        env = dict(item.split("=", 1) for item in
                   pathlib.Path(f"/proc/{proc.pid}/environ").read_text().split("\0") if "=" in item)
        got[role] = env.get("NODE_OPTIONS")
load = helpers.run_demo(20, 4, node=shutil.which("node"), started=started)
pathlib.Path(sys.argv[1]).write_text(json.dumps({"node_options": got, "requests": load["requests"]}))
"""


@pytest.mark.parametrize("version,flag", [("22", True), ("20", False)])
def test_record_adds_async_context_frame_where_it_helps(version, flag, tmp_path):
    """deepspan-record gives COMMAND's services --experimental-async-context-frame on Node 22 (>= 22.7), not
    on Node 20 (which refuses it in NODE_OPTIONS); the recorded trees stay whole."""
    reason = capture_unavailable()
    if reason:
        pytest.skip(reason)
    node, why = node_binary(version)
    if why:
        pytest.skip(why)
    env = dict(os.environ, PATH=f"{os.path.dirname(node)}:{os.environ['PATH']}")
    env.pop("NODE_OPTIONS", None)
    trace, result = tmp_path / "trace", tmp_path / "result.json"
    proc = subprocess.run([str(RECORD), "--no-kernel", "-o", str(trace), "--", "/usr/bin/python3", "-c",
                           DEMO_DRIVER, str(result), str(SRC_DIR / "tests")],
                          capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(result.read_text())
    print(f"Node {version}: {got}")
    expected = "--experimental-async-context-frame" if flag else None
    assert got["node_options"] == {"store": expected, "users": expected, "gateway": expected}
    assert ("NODE_OPTIONS=--experimental-async-context-frame" in proc.stderr) == flag
    assert got["requests"] == 20
    stats_path = tmp_path / "stats.json"
    spans, _, _ = read_spans(trace, "-p", f'stats="{stats_path}"')
    stats = json.loads(stats_path.read_text())
    assert stats["server_requests"] == stats["server_responses"] == 60
    assert stats["clients_with_parent"] == stats["clients_with_callee"] == 40
    assert stats["roots"] == 20 and stats["open_at_end"] == 0
    assert_demo_trees(spans, 20, one_trace=False)


def test_record_node_must_run(tmp_path):
    proc = subprocess.run([str(RECORD), "--node", str(tmp_path / "no-node"), "-o", str(tmp_path / "t"), "--",
                           "true"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    node = tmp_path / "no-node"
    assert f"--node '{node}': cannot run '{node} --version': name the services' node executable" in proc.stderr
