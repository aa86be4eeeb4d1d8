# SPDX-License-Identifier: MIT
"""The recorder sees TCP client calls through write() and push() wrapped once on net.Socket.prototype
(doc/nodejs.md, "Outgoing TCP that is not HTTP"): an HTTP client socket, which is not a TCP call, keeps
the own properties and listeners it has without the recorder (no per-socket accessor, closure or `close`
listener), while recorded; and its requests are still HTTP client spans, none a `TCP` call.
"""
import json
import os
import subprocess

import pytest

from test_nodejs_helpers import (RECORDER, capture_unavailable, plain_and_recorded, read_spans, recorded_env,
                                 services_node)

# An http server and a keep-alive client in one process: 5 requests on one socket; the client socket's
# own string-named properties, whether `write`/`push` are its own, and its listener counts after them.
PROGRAM = r"""
const http = require('http');
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const server = http.createServer((req, res) => res.end('ok'));
server.listen(0, '127.0.0.1', async () => {
	const port = server.address().port;
	let socket = null;
	for (let i = 0; i < 5; i++) {
		await new Promise((resolve, reject) => {
			const req = http.get({ port, host: '127.0.0.1', path: `/r/${i}`, agent }, (res) => {
				res.resume();
				res.on('end', resolve);
			});
			req.on('socket', (s) => { socket = s; });
			req.on('error', reject);
		});
	}
	const names = ['close', 'end', 'data', 'error', 'timeout', 'free', 'agentRemove'];
	// `_peername` and `_sockname` are net's caches of remoteAddress/localPort (filled when read): not the recorder's.
	const shape = {
		own: Object.getOwnPropertyNames(socket).filter((name) => name !== '_peername' && name !== '_sockname').sort(),
		ownWrite: Object.prototype.hasOwnProperty.call(socket, 'write'),
		ownPush: Object.prototype.hasOwnProperty.call(socket, 'push'),
		listeners: Object.fromEntries(names.map((name) => [name, socket.listenerCount(name)])),
	};
	agent.destroy();
	server.close(() => process.stdout.write(JSON.stringify(shape)));
});
"""


def run_program(recorded, node):
    env = dict(os.environ, **(recorded_env(node) if recorded else {}), DEEPSPAN_SERVICE="shape")
    preload = ["-r", str(RECORDER)] if recorded else []
    proc = subprocess.run([node, *preload, "-e", PROGRAM], capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_http_client_socket_keeps_its_shape_while_recorded(tmp_path):
    reason = capture_unavailable()
    if reason:
        pytest.skip(reason)
    node = services_node()
    trace = tmp_path / "trace"
    plain, recorded = plain_and_recorded(trace, lambda on: run_program(on, node), "nodejs-shape")
    print(f"without the recorder: {plain}\nrecorded: {recorded}")
    assert recorded == plain
    assert not recorded["ownWrite"] and not recorded["ownPush"]
    stats_path = tmp_path / "stats.json"
    spans, _, _ = read_spans(trace, "-p", f'stats="{stats_path}"')
    stats = json.loads(stats_path.read_text())
    assert stats["server_requests"] == stats["client_requests"] == 5
    clients = [s for s in spans.values() if s["kind"] == 2]
    assert len(clients) == 5
    assert all(s["operation"].startswith("HTTP GET 127.0.0.1:") for s in clients), clients
