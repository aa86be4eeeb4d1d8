# SPDX-License-Identifier: MIT
"""Recording only the Node.js services meant: `scripts/deepspan-record --node-services` (an LTTng filter on
the process name) and the recorder's switch DEEPSPAN_VNODE=0 (doc/nodejs.md, "Recording only the
services meant")."""
import os
import subprocess

import pytest

from conftest import SRC_DIR, run_babeltrace2
from test_nodejs_helpers import RECORDER, capture_unavailable, services_node

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
