# SPDX-License-Identifier: MIT
"""node:http2 recorded directly (doc/nodejs.md, "What is recorded"): a client process makes one stream before
its session connects (announced at `ready`) and three concurrent streams on the connected session (announced
when request() returns, their ids known), to a server process; every stream must be a client span linked to
the server span of the same stream id.  The recorder follows the streams through their class's `emit`, so
it adds no listener to a stream (grpc-js's hot paths keep their own listeners only, doc/nodejs.md "Cost").
"""
import json
import os
import subprocess

import pytest

from test_nodejs_helpers import (RECORDER, capture_unavailable, node_binary, plain_and_recorded, read_spans,
                                 recorded_env, request_chains, services_node)

SERVER = r"""
const http2 = require('http2');
const server = http2.createServer();
server.on('stream', (stream, headers) => {
	setTimeout(() => { stream.respond({ ':status': 200 }); stream.end(`ok ${headers[':path']}`); }, 5);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
process.on('SIGTERM', () => { server.close(); process.exit(0); });
"""

# The listeners each stream has when request() returns, and the statuses.
CLIENT = r"""
const http2 = require('http2');
const session = http2.connect(`http://127.0.0.1:${process.argv[1]}`);
const names = ['ready', 'response', 'close', 'data', 'end', 'error', 'trailers'];
const listeners = [];
const one = (path) => new Promise((resolve, reject) => {
	const stream = session.request({ ':path': path });
	listeners.push(Object.fromEntries(names.map((name) => [name, stream.listenerCount(name)])));
	stream.on('error', reject);
	stream.on('response', (headers) => {
		stream.resume();
		stream.on('end', () => resolve(headers[':status']));
	});
});
const early = one('/early');
session.once('connect', async () => {
	const statuses = [await early, ...(await Promise.all(['/a', '/b', '/c'].map(one)))];
	session.close();
	process.stdout.write(JSON.stringify({ statuses, listeners }));
});
"""


# How the programs get node:http2 (the recorder wraps it when the application first loads it, on Node
# with module.registerHooks): require(), an ES module import, process.getBuiltinModule().
LOADINGS = {
    "require": ([], lambda source: source),
    "import": (["--input-type=module"], lambda source: source.replace(
        "const http2 = require('http2');", "import http2 from 'node:http2';")),
    "getBuiltinModule": ([], lambda source: source.replace(
        "require('http2')", "process.getBuiltinModule('node:http2')")),
}


def run_pair(recorded, node, mode=None, loading="require"):
    env = dict(os.environ, **(recorded_env(node, {"DEEPSPAN_VNODE_CONTEXT": mode}) if recorded else {}))
    preload = ["-r", str(RECORDER)] if recorded else []
    flags, program = LOADINGS[loading]
    server = subprocess.Popen([node, *preload, *flags, "-e", program(SERVER)], stdout=subprocess.PIPE, text=True,
                              env=dict(env, DEEPSPAN_SERVICE="h2server"))
    try:
        port = server.stdout.readline().strip()
        assert port.isdigit(), "the http2 server did not start"
        client = subprocess.run([node, *preload, *flags, "-e", program(CLIENT), "--", port], capture_output=True,
                                text=True, timeout=60, env=dict(env, DEEPSPAN_SERVICE="h2client"))
        assert client.returncode == 0, client.stderr
        return json.loads(client.stdout)
    finally:
        server.terminate()
        server.wait(timeout=10)
        server.stdout.close()


def assert_linked_streams(plain, recorded, trace, tmp_path):
    print(f"without the recorder: {plain}\nrecorded: {recorded}")
    assert plain["statuses"] == recorded["statuses"] == [200] * 4
    assert recorded["listeners"] == plain["listeners"]
    stats_path = tmp_path / "stats.json"
    spans, _, _ = read_spans(trace, "-p", f'stats="{stats_path}"')
    stats = json.loads(stats_path.read_text())
    assert stats["server_requests"] == stats["server_responses"] == 4
    assert stats["client_requests"] == stats["client_responses"] == 4
    assert stats["clients_with_callee"] == 4
    assert stats["open_at_end"] == 0 and stats["unmatched_responses"] == 0
    chains = request_chains(spans)
    assert sorted((c[0]["service"], c[0]["kind"], c[1]["service"], c[1]["kind"], c[1]["operation"])
                  for c in chains) == sorted(("h2client", 2, "h2server", 1, f"HTTP GET {path}")
                                             for path in ("/early", "/a", "/b", "/c"))


@pytest.mark.parametrize("mode", ["hooks", "store"])
def test_http2_streams_linked_and_no_listener_added(mode, tmp_path):
    reason = capture_unavailable()
    if reason:
        pytest.skip(reason)
    node = services_node()
    trace = tmp_path / "trace"
    plain, recorded = plain_and_recorded(trace, lambda on: run_pair(on, node, mode), "nodejs-h2")
    assert_linked_streams(plain, recorded, trace, tmp_path)


@pytest.mark.parametrize("loading", ["import", "getBuiltinModule", "require"])
def test_http2_wrapped_when_the_application_loads_it(loading, tmp_path):
    """Node 22: the recorder loads node:http2 only when the application does (it loads tls and crypto,
    which cost every garbage collection of an HTTP/1 service), and every way of loading it is recorded."""
    reason = capture_unavailable()
    node, why = node_binary(22)
    if reason or why:
        pytest.skip(reason or why)
    check = "process.stdout.write(String(process.moduleLoadList.includes('NativeModule http2')))"
    env = dict(os.environ, **recorded_env(node))
    loaded = subprocess.run([node, "-r", str(RECORDER), "-e", check], capture_output=True, text=True,
                            timeout=60, env=env)
    assert (loaded.returncode, loaded.stdout) == (0, "false"), loaded.stderr
    trace = tmp_path / "trace"
    plain, recorded = plain_and_recorded(trace, lambda on: run_pair(on, node, "store", loading),
                                         "nodejs-h2-load")
    assert_linked_streams(plain, recorded, trace, tmp_path)
