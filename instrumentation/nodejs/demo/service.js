'use strict';
/*
 * A three-service Node.js demo on loopback: gateway -> users -> store.
 *
 *   node service.js store
 *   STORE_PORT=P node service.js users
 *   USERS_PORT=P node service.js gateway
 *
 * DEMO_CLIENT=fetch makes users and gateway call with fetch() instead of http.get;
 * DEMO_REDIS_PORT=P makes users run a Redis INCR per request (see below).
 * Each listens on 127.0.0.1 (PORT, default: any free port) and prints
 * `listening PORT` once ready.  Endpoints:
 *   store   GET /item     answers after a 2 ms timer
 *   users   GET /user     0.3 ms of computation, then store /item
 *           GET /slow     a 50 ms synchronous loop (blocks users' event loop), then store /item
 *   gateway GET /api      users /user;   GET /api/slow   users /slow
 */
const http = require('http');

const role = process.argv[2];
const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });

function spin(ms) {
	const end = process.hrtime.bigint() + BigInt(Math.round(ms * 1e6));
	let x = 0;
	while (process.hrtime.bigint() < end) {
		x += Math.sqrt(x + 1);
	}
	return x;
}

// DEMO_CLIENT=fetch: calls go through the global fetch() (undici, its own keep-alive pool).
const useFetch = process.env.DEMO_CLIENT === 'fetch';

function call(port, path, done) {
	if (useFetch) {
		fetch(`http://127.0.0.1:${port}${path}`)
			.then((res) => res.text().then((body) => done(null, res.status, body)))
			.catch((err) => done(err));
		return;
	}
	const req = http.get({ host: '127.0.0.1', port, path, agent }, (res) => {
		let body = '';
		res.setEncoding('utf8');
		res.on('data', (chunk) => { body += chunk; });
		res.on('end', () => done(null, res.statusCode, body));
	});
	req.on('error', (err) => done(err));
}

function reply(res, status, body) {
	res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
	res.end(body);
}

function forward(res, port, path) {
	call(port, path, (err, status, body) => {
		if (err) {
			reply(res, 502, JSON.stringify({ error: err.message }));
		} else {
			reply(res, status, body);
		}
	});
}

const handlers = {
	store(req, res) {
		setTimeout(() => reply(res, 200, JSON.stringify({ item: req.url })), 2);
	},
	users(req, res) {
		const store = Number(process.env.STORE_PORT);
		if (req.url.startsWith('/slow')) {
			spin(50);
		} else {
			spin(0.3);
		}
		if (redis) {
			redis.incr('demo:users').then(() => forward(res, store, '/item?from=users'),
				(err) => reply(res, 502, JSON.stringify({ error: err.message })));
			return;
		}
		forward(res, store, '/item?from=users');
	},
	gateway(req, res) {
		const users = Number(process.env.USERS_PORT);
		forward(res, users, req.url.startsWith('/api/slow') ? '/slow' : '/user');
	},
};

// DEMO_REDIS_PORT=P: users also runs one Redis INCR on 127.0.0.1:P per request (the npm
// package `redis`, found through NODE_PATH), before calling store.
let redis = null;
if (role === 'users' && process.env.DEMO_REDIS_PORT) {
	redis = require('redis').createClient({ socket: { host: '127.0.0.1', port: Number(process.env.DEMO_REDIS_PORT) } });
	redis.on('error', (err) => process.stderr.write(`users: redis: ${err.message}\n`));
}

if (!handlers[role]) {
	process.stderr.write(`usage: node service.js store|users|gateway\n`);
	process.exit(2);
}
const server = http.createServer({ keepAliveTimeout: 30000 }, handlers[role]);
(redis ? redis.connect() : Promise.resolve()).then(() => {
	server.listen(Number(process.env.PORT || 0), '127.0.0.1', () => {
		process.stdout.write(`listening ${server.address().port}\n`);
	});
});
process.on('SIGTERM', () => {
	server.close();
	agent.destroy();
	process.exit(0);
});
