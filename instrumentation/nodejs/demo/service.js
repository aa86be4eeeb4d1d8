'use strict';
// SPDX-License-Identifier: MIT
/*
 * A three-service Node.js demo on loopback: gateway -> users -> store.
 *
 *   node service.js store
 *   STORE_PORT=P node service.js users
 *   USERS_PORT=P node service.js gateway
 *
 * DEMO_CLIENT=fetch makes users and gateway call with fetch() instead of http.get;
 * DEMO_REDIS_PORT=P makes users run a Redis INCR per request; DEMO_PG_PORT=P makes users run one
 * PostgreSQL simple query per request (npm `pg`, a pool, user postgres, trust authentication); DEMO_USERS_GRPC=1 makes users a gRPC
 * service that gateway calls with @grpc/grpc-js; DEMO_FRAMEWORKS=1 uses fastify, express and axios
 * (see below).
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

// DEMO_SPIN_LOOPS=N: each millisecond of spin() is N turns of its loop instead of a clock reading
// (bench/nodejs-instructions: under valgrind a wall-clock spin runs a number of instructions that
// depends on the machine's load).
const spinLoops = Number(process.env.DEMO_SPIN_LOOPS) || 0;

function spin(ms) {
	let x = 0;
	if (spinLoops > 0) {
		for (let turns = Math.round(ms * spinLoops); turns > 0; turns--) {
			process.hrtime.bigint();
			x += Math.sqrt(x + 1);
		}
		return x;
	}
	const end = process.hrtime.bigint() + BigInt(Math.round(ms * 1e6));
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
		if (pg) {
			pg.query('SELECT 1 AS one').then(() => forward(res, store, '/item?from=users'),
				(err) => reply(res, 502, JSON.stringify({ error: err.message })));
			return;
		}
		forward(res, store, '/item?from=users');
	},
	gateway(req, res) {
		const users = Number(process.env.USERS_PORT);
		if (grpc) {
			forwardGrpc(res, users, req.url.startsWith('/api/slow') ? '/slow' : '/user');
			return;
		}
		forward(res, users, req.url.startsWith('/api/slow') ? '/slow' : '/user');
	},
};

// DEMO_USERS_GRPC=1: users serves the gRPC method /demo.Users/GetUser (npm package
// @grpc/grpc-js through NODE_PATH, JSON messages) instead of HTTP, and gateway calls it so.
const grpcUsers = process.env.DEMO_USERS_GRPC === '1';
const grpc = grpcUsers && (role === 'users' || role === 'gateway') ? require('@grpc/grpc-js') : null;
const json = { serialize: (value) => Buffer.from(JSON.stringify(value)), deserialize: (buf) => JSON.parse(buf) };
const usersService = {
	getUser: { path: '/demo.Users/GetUser', requestStream: false, responseStream: false,
		requestSerialize: json.serialize, requestDeserialize: json.deserialize,
		responseSerialize: json.serialize, responseDeserialize: json.deserialize },
};
let usersClient = null;

// gateway connects its gRPC channel before it serves (calls queued while grpc-js connects are
// started from the connection's callback, outside their request: see doc/nodejs.md, Limits).
function connectUsersGrpc() {
	const Client = grpc.makeGenericClientConstructor(usersService, 'Users');
	usersClient = new Client(`127.0.0.1:${Number(process.env.USERS_PORT)}`, grpc.credentials.createInsecure());
	return new Promise((resolve, reject) => {
		usersClient.waitForReady(Date.now() + 10000, (err) => (err ? reject(err) : resolve()));
	});
}

function forwardGrpc(res, port, path) {
	usersClient.getUser({ path }, (err, answer) => {
		if (err) {
			reply(res, 502, JSON.stringify({ error: err.message }));
		} else {
			reply(res, answer.status, answer.body);
		}
	});
}

// DEMO_REDIS_PORT=P: users also runs one Redis INCR on 127.0.0.1:P per request (the npm
// package `redis`, found through NODE_PATH), before calling store.
let redis = null;
if (role === 'users' && process.env.DEMO_REDIS_PORT) {
	redis = require('redis').createClient({ socket: { host: '127.0.0.1', port: Number(process.env.DEMO_REDIS_PORT) } });
	redis.on('error', (err) => process.stderr.write(`users: redis: ${err.message}\n`));
}

// DEMO_PG_PORT=P: users also runs one PostgreSQL query on 127.0.0.1:P per request (the npm
// package `pg`, found through NODE_PATH), before calling store.  A pg.Pool of PG_POOL connections,
// all opened before users serves: a query waits for no connection (a query queued behind a busy
// one is written from the previous query's completion, outside its request: doc/nodejs.md, Limits).
const PG_POOL = 8;
let pg = null;
if (role === 'users' && process.env.DEMO_PG_PORT) {
	const { Pool } = require('pg');
	pg = new Pool({ host: '127.0.0.1', port: Number(process.env.DEMO_PG_PORT), user: 'postgres',
		database: 'postgres', max: PG_POOL, idleTimeoutMillis: 0 });
	pg.on('error', (err) => process.stderr.write(`users: postgres: ${err.message}\n`));
}
const pgWarm = () => Promise.all(Array.from({ length: PG_POOL }, () => pg.connect()))
	.then((clients) => clients.forEach((client) => client.release()));

if (!handlers[role]) {
	process.stderr.write(`usage: node service.js store|users|gateway\n`);
	process.exit(2);
}
// DEMO_FRAMEWORKS=1: the npm frameworks people use (through NODE_PATH): store is a fastify app
// (GET /item/:id/:kind), users an express app (GET /user/:id/:tab) calling store with axios,
// gateway calls users with axios; the ids in the paths are the request numbers and the second
// segments words (tabs bio, posts, friends; kinds book, pen), which only the route templates
// name as one operation (operation names: doc/nodejs.md).
if (process.env.DEMO_FRAMEWORKS === '1') {
	const axios = role === 'store' ? null : require('axios');
	const keepAlive = axios && axios.create({ httpAgent: agent });
	const TABS = ['bio', 'posts', 'friends'];
	const KINDS = ['book', 'pen'];
	let counter = 0;
	const viaAxios = (res, url) => keepAlive.get(url).then(
		(answer) => res.status(answer.status).type('application/json').send(JSON.stringify(answer.data)),
		(err) => res.status(502).type('application/json').send(JSON.stringify({ error: err.message })));
	const listen = (port) => process.stdout.write(`listening ${port}\n`);
	if (role === 'store') {
		const app = require('fastify')();
		app.get('/item/:id/:kind', (request, reply) => {
			setTimeout(() => reply.send({ item: request.params.id, kind: request.params.kind }), 2);
		});
		app.listen({ port: Number(process.env.PORT || 0), host: '127.0.0.1' }).then(() => listen(app.server.address().port));
		process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
	} else {
		const app = require('express')();
		const next = role === 'users' ? `http://127.0.0.1:${Number(process.env.STORE_PORT)}/item/`
			: `http://127.0.0.1:${Number(process.env.USERS_PORT)}/user/`;
		app.get(role === 'users' ? '/user/:id/:tab' : '/api', (req, res) => {
			if (role === 'users') {
				spin(0.3);
				viaAxios(res, `${next}${req.params.id}/${KINDS[Number(req.params.id) % KINDS.length]}`);
				return;
			}
			counter++;
			viaAxios(res, `${next}${counter}/${TABS[counter % TABS.length]}`);
		});
		const server = app.listen(Number(process.env.PORT || 0), '127.0.0.1', () => listen(server.address().port));
		server.keepAliveTimeout = 30000;
		process.on('SIGTERM', () => { server.close(); agent.destroy(); process.exit(0); });
	}
	return;
}

if (grpc && role === 'users') {
	// users over gRPC: the same work as its HTTP handler, answered as { status, body }.
	const store = Number(process.env.STORE_PORT);
	const grpcServer = new grpc.Server();
	grpcServer.addService(usersService, {
		getUser(callObj, callback) {
			spin(callObj.request.path === '/slow' ? 50 : 0.3);
			call(store, '/item?from=users', (err, status, body) => {
				callback(null, err ? { status: 502, body: JSON.stringify({ error: err.message }) } : { status, body });
			});
		},
	});
	grpcServer.bindAsync(`127.0.0.1:${Number(process.env.PORT || 0)}`, grpc.ServerCredentials.createInsecure(),
		(err, port) => {
			if (err) {
				process.stderr.write(`users: gRPC bind: ${err.message}\n`);
				process.exit(1);
			}
			process.stdout.write(`listening ${port}\n`);
		});
	process.on('SIGTERM', () => grpcServer.tryShutdown(() => process.exit(0)));
	return;
}
const server = http.createServer({ keepAliveTimeout: 30000 }, handlers[role]);
const ready = redis ? redis.connect() : pg ? pgWarm() : grpc && role === 'gateway' ? connectUsersGrpc() : Promise.resolve();
ready.then(() => {
	server.listen(Number(process.env.PORT || 0), '127.0.0.1', () => {
		process.stdout.write(`listening ${server.address().port}\n`);
	});
});
process.on('SIGTERM', () => {
	server.close();
	agent.destroy();
	process.exit(0);
});
