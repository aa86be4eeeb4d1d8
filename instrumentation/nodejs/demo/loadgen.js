'use strict';
// SPDX-License-Identifier: MIT
/*
 * Bounded HTTP load on 127.0.0.1: `node loadgen.js PORT REQUESTS CONCURRENCY [SLOW_EVERY]`.
 * Sends REQUESTS GET /api (every SLOW_EVERY-th one GET /api/slow, 0 = never) with
 * CONCURRENCY in flight over keep-alive connections, and prints one JSON document:
 * { requests, seconds, rps, latencies: [{ path, start_ms, ms, status }] }
 * (start_ms: wall clock, ms since the epoch).
 */
const http = require('http');

const [port, total, concurrency, slowEvery] = process.argv.slice(2).map(Number);
if (!port || !total || !concurrency) {
	process.stderr.write('usage: node loadgen.js PORT REQUESTS CONCURRENCY [SLOW_EVERY]\n');
	process.exit(2);
}
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
const latencies = [];
let sent = 0;
let finished = 0;
const begin = process.hrtime.bigint();

function next() {
	if (sent >= total) {
		return;
	}
	const index = sent++;
	const path = slowEvery && index % slowEvery === slowEvery - 1 ? '/api/slow' : '/api';
	const startWall = Date.now();
	const start = process.hrtime.bigint();
	http.get({ host: '127.0.0.1', port, path, agent }, (res) => {
		res.resume();
		res.on('end', () => {
			latencies.push({ path, start_ms: startWall, ms: Number(process.hrtime.bigint() - start) / 1e6,
				status: res.statusCode });
			finished++;
			if (finished === total) {
				const seconds = Number(process.hrtime.bigint() - begin) / 1e9;
				process.stdout.write(JSON.stringify({ requests: total, seconds, rps: total / seconds, latencies }) + '\n');
				agent.destroy();
			} else {
				next();
			}
		});
	}).on('error', (err) => {
		process.stderr.write(`loadgen: ${err.message}\n`);
		process.exit(1);
	});
}

for (let i = 0; i < concurrency; i++) {
	next();
}
