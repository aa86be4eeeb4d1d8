'use strict';
// SPDX-License-Identifier: MIT
/*
 * deepspan Node.js recorder: preload it into an unmodified application,
 *
 *     node -r /path/to/deepspan-vnode.js app.js
 *
 * and record the LTTng-UST provider `vnode` (lttng enable-event -u 'vnode:*').
 * It reports every HTTP, fetch, http2 and TCP exchange (diagnostics_channel and
 * wrappers), the client calls' owners and the changes of the running request
 * through the deepspan_vnode addon; filter.deepspan.nodejs-ctx turns them into
 * spans.  $DEEPSPAN_VNODE_CONTEXT=store|hooks chooses how the running request is
 * known (default: store; doc/nodejs.md, "Cost").
 *
 * The addon is looked up in $DEEPSPAN_VNODE_ADDON, then beside this file.
 * When it cannot be loaded the application runs untraced after one warning.
 * $DEEPSPAN_SERVICE, when set, becomes the process title: the LTTng `procname`
 * context, hence the service name of the spans (at most 15 characters).
 * $DEEPSPAN_VNODE=0 turns the recorder off in this process.
 */
const path = require('path');

// DEEPSPAN_VNODE=0: this process is not recorded (the script loads nothing), e.g. the tools
// of a machine where NODE_OPTIONS preloads the recorder into every node process.
const vnodeOff = process.env.DEEPSPAN_VNODE === '0';

if (process.env.DEEPSPAN_SERVICE && !vnodeOff) {
	process.title = process.env.DEEPSPAN_SERVICE;
}

function loadAddon() {
	const candidates = [];
	if (process.env.DEEPSPAN_VNODE_ADDON) {
		candidates.push(process.env.DEEPSPAN_VNODE_ADDON);
	}
	candidates.push(path.join(__dirname, 'deepspan_vnode.node'));
	candidates.push(path.join(__dirname, '.libs', 'deepspan_vnode.node'));
	const failures = [];
	for (const file of candidates) {
		try {
			return require(file);
		} catch (err) {
			failures.push(`${file}: ${err.code === 'MODULE_NOT_FOUND' ? 'not found' : err.message}`);
		}
	}
	process.stderr.write(`deepspan-vnode: warning: cannot load the deepspan_vnode addon, the ` +
		`application runs without vnode tracing (tried ${failures.join('; ')}); ` +
		'set DEEPSPAN_VNODE_ADDON to its path\n');
	return null;
}

const addon = vnodeOff ? null : loadAddon();

if (addon) {
	const asyncHooks = require('async_hooks');
	const diagnostics = require('diagnostics_channel');
	const { asyncContext, httpRequest, httpResponse, tracing, registerType, switchTo } = addon;
	const executionAsyncId = asyncHooks.executionAsyncId;
	const { AsyncResource } = asyncHooks;
	const PHASE_CONSTRUCTOR = 0;
	const nodeMajor = Number(process.versions.node.split('.')[0]);

	// Which request runs (doc/nodejs.md, "Cost"): ownership is decided here, in the process,
	// and the addon (a native call per event) is called only where the filter needs an event:
	// a server request and its response; the construction of a client resource (with its
	// owner's id as trigger: the filter gives the client span that parent), the client request
	// and its response; a change of the request whose code runs (`switchTo(old, new)`: `after`
	// of the old request's id and `before` of the new one's, in one call).  Two ways to know the
	// owner of the running code (DEEPSPAN_VNODE_CONTEXT=store|hooks; default: store, the cheaper
	// on every version, doc/performance.md):
	// - store: an AsyncLocalStorage holds the request's token, entered at the request's start
	//   (enterWith) and read (getStore) only where a client resource is made.  No per-callback
	//   JavaScript: with --experimental-async-context-frame (Node >= 22.7) Node propagates it
	//   without any async hook; without, AsyncLocalStorage keeps a constructor hook of its own.
	//   A request is reported running from each of its events (its start, a client call, a
	//   client response) to the end of that turn of the loop (a microtask queued then):
	//   callbacks of the request that make no event are not seen running.
	// - hooks: async_hooks marks every resource constructed while a request's code runs with
	//   that request (a symbol property holding the request's token) and `before` reads the
	//   token of the resource it enters (executionAsyncResource()): every callback is seen.
	// Either way everything is subscribed (and the hooks enabled) only while a session records
	// vnode:async_context (checked at start and every TRACING_POLL_MS): preloaded but untraced,
	// the application pays nothing but that poll.  Resources made before a session starts have
	// no owner.  No destroy hook (it makes V8 track the collection of every promise).
	const contextMode = process.env.DEEPSPAN_VNODE_CONTEXT === 'hooks' ? 'hooks' : 'store';
	const storeMode = contextMode === 'store';
	const kOwner = Symbol('deepspan-vnode-owner');
	const typeIndex = new Map();
	const typeOf = (type) => {
		let index = typeIndex.get(type);
		if (index === undefined) {
			index = typeIndex.size;
			typeIndex.set(type, index);
			registerType(index, type);
		}
		return index;
	};
	// Synthetic ids (a request's token, store mode's client resources): far above any async
	// id of a process (they are counters).
	const SYNTHETIC_ID_BASE = 2 ** 50;
	let syntheticCount = 0;
	const syntheticId = () => SYNTHETIC_ID_BASE + ++syntheticCount;
	// The request last reported running (a token or null).
	let active = null;
	const sidOf = (token) => (token === null || token === undefined ? -1 : token.sid);
	const report = (owner) => {
		if (owner !== active) {
			switchTo(sidOf(active), sidOf(owner));
			active = owner;
		}
	};
	let turnQueued = false;

	// store mode.
	const store = storeMode ? new asyncHooks.AsyncLocalStorage() : null;
	// The end of the turn in which a request was reported running: nothing runs now.
	const turnEnd = () => {
		turnQueued = false;
		report(null);
	};
	// A microtask queued as a reaction of a settled promise: one V8 job (queueMicrotask makes an
	// AsyncResource, a bound function and a scope per call), in the same queue, in the same order.
	const settled = Promise.resolve();
	const endOfTurn = () => {
		if (!turnQueued) {
			turnQueued = true;
			settled.then(turnEnd);
		}
	};
	// `token`'s code runs now, until the end of this turn.
	const runsNow = (token) => {
		if (token === undefined || token === null) {
			return;
		}
		report(token);
		endOfTurn();
	};
	// runsNow(token) folded into the HTTP event about to be written: the id for its `runs_id`
	// (the filter switches after the event as switchTo(running, token) would), -1 when
	// `token` runs already or is none.  One LTTng event and one native call less.
	const runsWith = (token) => {
		if (token === undefined || token === null) {
			return -1;
		}
		endOfTurn();
		if (token === active) {
			return -1;
		}
		active = token;
		return token.sid;
	};

	// hooks mode: the owner (request token or null) of every callback running, innermost last.
	const executionAsyncResource = asyncHooks.executionAsyncResource;
	let owners = [];
	const switchDone = () => {
		turnQueued = false;
	};
	const currentOwner = () => (owners.length > 0 ? owners[owners.length - 1] : null);
	const hook = storeMode ? null : asyncHooks.createHook({
		init(id, type, trigger, resource) {
			const owner = currentOwner();
			if (owner !== null) {
				resource[kOwner] = owner;
			}
			if (type === 'HTTPCLIENTREQUEST' || type === 'DEEPSPAN_CLIENT') {
				asyncContext(PHASE_CONSTRUCTOR, id, sidOf(owner), executionAsyncId(), typeOf(type));
			}
		},
		before() {
			const owner = executionAsyncResource()[kOwner];
			const token = owner === undefined ? null : owner;
			owners.push(token);
			if (token !== active) {
				report(token);
			}
		},
		after() {
			owners.pop();
			const token = currentOwner();
			if (token === active) {
				return;
			}
			if (token === null && owners.length === 0) {
				// Back between callbacks: the next one (a tick, a promise reaction) is
				// often the same request's.  The switch is reported by the next callback
				// that is not the request's, at the latest by a microtask queued now (its
				// own `before` reports it), which runs before the loop can wait for I/O.
				if (!turnQueued) {
					turnQueued = true;
					queueMicrotask(switchDone);
				}
				return;
			}
			report(token);
		},
	});

	// The owner (token or null) of the code running now.
	const ownerNow = storeMode ? () => {
		const token = store.getStore();
		return token === undefined ? null : token;
	} : currentOwner;
	// A server request starts: its token (a synthetic id, the request's ctx_id) owns the rest
	// of the current callback when `now` (HTTP/1: the request event fires in its parser's
	// callback) and, hooks mode, `resource`'s later callbacks.  It is reported running after
	// its request event (the filter knows the id from that event on): store mode in the event
	// itself (runsWith), hooks mode by requestRuns().
	const requestStart = (resource, now) => {
		const token = { sid: syntheticId() };
		if (storeMode) {
			if (now) {
				store.enterWith(token);
			}
			return token;
		}
		if (resource) {
			resource[kOwner] = token;
		}
		if (now && owners.length > 0) {
			owners[owners.length - 1] = token;
		}
		return token;
	};
	const requestRuns = (token) => {
		if (owners.length > 0 && currentOwner() === token) {
			report(token);
		}
	};
	// Runs fn() as `token`'s code (its callbacks are the request's).
	const runAs = (token, fn) => {
		if (storeMode) {
			return store.run(token, fn);
		}
		const resource = new AsyncResource('DEEPSPAN_STREAM', { requireManualDestroy: true });
		resource[kOwner] = token;
		return resource.runInAsyncScope(fn);
	};
	// A client call made now: its resource id (the ctx_id of its request and response) and
	// owner.  hooks mode: an AsyncResource (its `init` reports it); store mode: a synthetic
	// id, reported here.
	const clientCall = () => {
		const owner = ownerNow();
		if (storeMode) {
			const id = syntheticId();
			asyncContext(PHASE_CONSTRUCTOR, id, sidOf(owner), sidOf(owner), typeOf('DEEPSPAN_CLIENT'));
			runsNow(owner);
			return { id, owner, resource: null };
		}
		const resource = new AsyncResource('DEEPSPAN_CLIENT', { requireManualDestroy: true });
		return { id: resource.asyncId(), owner, resource };
	};
	const clientDone = (call) => {
		if (call.resource) {
			call.resource.emitDestroy();
		}
	};

	// diagnostics_channel subscriptions, made while a session records (followSession).
	const subscriptions = [];
	const whileTracing = (name, handler) => {
		subscriptions.push([name, handler]);
	};
	const TRACING_POLL_MS = 250;
	let hooked = false;
	const followSession = () => {
		const on = tracing();
		if (on !== hooked) {
			hooked = on;
			owners = [];
			active = null;
			turnQueued = false;
			for (const [name, handler] of subscriptions) {
				if (on) {
					diagnostics.subscribe(name, handler);
				} else {
					diagnostics.unsubscribe(name, handler);
				}
			}
			if (hook && on) {
				hook.enable();
			} else if (hook) {
				hook.disable();
			}
		}
	};

	const kVnode = Symbol('deepspan-vnode');
	const kSocket = Symbol('deepspan-vnode-socket');
	// A port <= 0 is not a port: socket.localPort is 0 (or undefined) before the connect.
	const portOr = (value, fallback) => (typeof value === 'number' && value > 0 ? value : fallback);
	const NO_SOCKET = { fd: -1, id: -1, address: '', port: -1, localPort: -1 };
	// What the events say of a socket: fd, async id, peer address and port, local port; kept
	// on the socket once it is connected (keep-alive requests reuse it), read again before.
	const socketInfo = (socket) => {
		if (!socket) {
			return NO_SOCKET;
		}
		const cached = socket[kSocket];
		if (cached !== undefined) {
			return cached;
		}
		const handle = socket._handle;
		const info = {
			fd: handle && typeof handle.fd === 'number' ? handle.fd : -1,
			id: handle && handle.getAsyncId ? handle.getAsyncId() : -1,
			address: socket.remoteAddress || '',
			port: portOr(socket.remotePort, -1),
			localPort: portOr(socket.localPort, -1),
		};
		if (info.fd >= 0 && info.port > 0 && info.localPort > 0) {
			socket[kSocket] = info;
		}
		return info;
	};

	// The remote port of an outgoing request whose socket is not connected yet.
	function requestedPort(request) {
		const host = typeof request.getHeader === 'function' ? request.getHeader('host') : undefined;
		const match = typeof host === 'string' ? /:(\d+)$/.exec(host) : null;
		if (match) {
			return Number(match[1]);
		}
		return request.protocol === 'https:' ? 443 : 80;
	}

	// Route templates (doc/nodejs.md, "Operation names"): the request event fires before the
	// framework routes the request, so the recorder learns each process's routes (method and
	// template) and reports, as a request's url, the first template its path matches (else the
	// raw url):
	// - fastify: every route as it is added (hook `onRoute` of each instance, through the
	//   `fastify.initialization` channel of fastify >= 4);
	// - express (4 and 5): the routes of the application's router, read at its first request,
	//   and the route of every answered request (`req.baseUrl` + `req.route.path`: routes of
	//   mounted routers are known from their first answered request on).
	// Only string templates: `:name` segments (with an optional `(regexp)` or `?`) match one
	// segment, `*` anything; registration order decides, as in both frameworks.
	const routes = [];
	const routeKeys = new Set();
	const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
	const templateRegExp = (template) => new RegExp(`^${template.split('/').map((seg) => {
		if (seg.startsWith(':')) {
			return '[^/]+';
		}
		return seg === '*' ? '.*' : escapeRegExp(seg);
	}).join('/')}/?$`);
	const addRoute = (method, template) => {
		if (typeof template !== 'string' || template === '' || template[0] !== '/') {
			return;
		}
		const verb = String(method).toUpperCase();
		const key = `${verb} ${template}`;
		if (!routeKeys.has(key)) {
			routeKeys.add(key);
			routes.push({ verb, template, regexp: templateRegExp(template) });
		}
	};
	const routeOf = (method, url) => {
		if (routes.length === 0 || typeof url !== 'string') {
			return url;
		}
		const end = url.search(/[?#]/);
		const path = end < 0 ? url : url.slice(0, end);
		for (const route of routes) {
			if ((route.verb === method || route.verb === '_ALL') && route.regexp.test(path)) {
				return route.template;
			}
		}
		return url;
	};
	diagnostics.subscribe('fastify.initialization', ({ fastify }) => {
		if (fastify && typeof fastify.addHook === 'function') {
			fastify.addHook('onRoute', (options) => {
				for (const method of [].concat(options.method)) {
					addRoute(method, options.url);
				}
			});
		}
	});
	const expressSeen = new WeakSet();
	const learnExpressApp = (server) => {
		if (!server || expressSeen.has(server)) {
			return;
		}
		expressSeen.add(server);
		for (const app of server.listeners('request')) {
			const router = app && (app._router || app.router);
			const stack = router && Array.isArray(router.stack) ? router.stack : [];
			for (const layer of stack) {
				const route = layer && layer.route;
				if (route && typeof route.path === 'string' && route.methods) {
					for (const method of Object.keys(route.methods)) {
						if (route.methods[method]) {
							addRoute(method === '_all' ? '_ALL' : method, route.path);
						}
					}
				}
			}
		}
	};
	// ctx_id of a server request: its token's synthetic id (the filter makes the request own
	// it; `switchTo` and the response name the request by it).
	whileTracing('http.server.request.start', ({ request, socket, server }) => {
		learnExpressApp(server);
		const token = requestStart(storeMode ? null : executionAsyncResource(), true);
		const at = socketInfo(socket);
		httpRequest(false, at.fd, at.id, token.sid, request.method || '',
			routeOf(request.method, request.url || ''), at.address, at.port, at.localPort, 0,
			storeMode ? runsWith(token) : -1);
		if (!storeMode) {
			requestRuns(token);
		}
		request[kVnode] = token;
	});
	whileTracing('http.server.response.finish', ({ request, response, socket }) => {
		const token = request && request[kVnode];
		if (request && request.route && typeof request.route.path === 'string') {
			addRoute(request.method, `${typeof request.baseUrl === 'string' ? request.baseUrl : ''}${request.route.path}`);
		}
		const at = socketInfo(socket);
		httpResponse(false, at.fd, at.id, token ? token.sid : executionAsyncId(),
			response.statusCode || 0, at.address, at.port, at.localPort);
	});

	// HTTP clients.  hooks mode: ctx_id is the async id of the request's HTTPCLIENTREQUEST
	// resource (its `init` reported it, in the caller's context).  store mode: the request's
	// own synthetic id, reported where the ClientRequest is made (http.client.request.created,
	// Node >= 22; before, http.request / http.get / https.request / https.get are wrapped).
	// Node publishes http.client.request.start once the request is written (the callee may
	// already run): the client span starts at that earlier constructor.
	const clientOf = (request) => {
		const call = request[kVnode];
		if (call !== undefined) {
			return call;
		}
		return { id: request.parser && request.parser.getAsyncId ? request.parser.getAsyncId()
			: executionAsyncId(), owner: null, resource: null };
	};
	if (storeMode) {
		const madeNow = (request) => {
			if (request && request[kVnode] === undefined) {
				request[kVnode] = clientCall();
			}
		};
		if (nodeMajor >= 22) {
			whileTracing('http.client.request.created', ({ request }) => madeNow(request));
		} else {
			for (const module of [require('http'), require('https')]) {
				for (const name of ['request', 'get']) {
					const original = module[name];
					module[name] = function vnodeHttpRequest(...args) {
						const request = original.apply(this, args);
						if (hooked) {
							madeNow(request);
						}
						return request;
					};
				}
			}
		}
	}
	whileTracing('http.client.request.start', ({ request }) => {
		const socket = request.socket;
		const at = socketInfo(socket);
		httpRequest(true, at.fd, at.id, clientOf(request).id, request.method || '', request.path || '',
			request.host || '', at.port > 0 ? at.port : requestedPort(request), at.localPort);
	});
	whileTracing('http.client.response.finish', ({ request, response }) => {
		const call = clientOf(request);
		const at = socketInfo(request.socket || response.socket);
		// store mode: the caller's response handler runs next.
		httpResponse(true, at.fd, at.id, storeMode ? call.id : executionAsyncId(), response.statusCode || 0,
			request.host || '', at.port > 0 ? at.port : requestedPort(request), at.localPort,
			storeMode ? runsWith(call.owner) : -1);
	});

	// fetch() / undici (Node >= 18): its diagnostics_channel events, mapped onto the http
	// client events.  undici has no async resource per request: the recorder makes the client
	// call at `undici:request:create`, in the caller's context (clientCall: hooks mode an
	// AsyncResource of type DEEPSPAN_CLIENT, store mode a synthetic id), so the filter gives it
	// the caller's owner and starts the client span there.  Its id is the request's ctx_id;
	// `undici:client:sendHeaders` announces the request with its socket's ports (again on a
	// retry, with the new socket), `undici:request:headers` ends it, `undici:request:error`
	// ends it with status 0 (aborted, refused, reset).
	const kVnodeHttp = Symbol('deepspan-vnode-http');
	const UNDICI_OPEN = 0, UNDICI_SENT = 1, UNDICI_DONE = 2;
	const originHost = (origin) => {
		try {
			const url = new URL(String(origin));
			const port = url.port ? Number(url.port) : (url.protocol === 'https:' ? 443 : 80);
			return { host: url.hostname, port };
		} catch (err) {
			return { host: '', port: -1 };
		}
	};
	const undiciAnnounce = (request, state, socket) => {
		const at = socketInfo(socket);
		httpRequest(true, at.fd, at.id, state.call.id, request.method || '', request.path || '', state.host,
			at.port > 0 ? at.port : state.port, at.localPort);
		state.phase = UNDICI_SENT;
	};
	// runs: the request whose code runs from the response on (runsWith), -1 none.
	const undiciEnd = (request, state, status, socket, runs) => {
		if (state.phase === UNDICI_OPEN) {
			undiciAnnounce(request, state, null);
		}
		const at = socketInfo(socket);
		httpResponse(true, at.fd, at.id, state.call.id, status, state.host, at.port > 0 ? at.port : state.port,
			at.localPort, runs);
		state.phase = UNDICI_DONE;
		clientDone(state.call);
		request[kVnode] = undefined;
	};
	whileTracing('undici:request:create', ({ request }) => {
		const { host, port } = originHost(request.origin);
		request[kVnode] = { call: clientCall(), host, port, phase: UNDICI_OPEN, socket: null };
	});
	// undici's sockets are HTTP: not TCP calls (below).
	whileTracing('undici:client:connected', ({ socket }) => {
		if (socket) {
			socket[kVnodeHttp] = true;
		}
	});
	whileTracing('undici:client:sendHeaders', ({ request, socket }) => {
		const state = request[kVnode];
		if (state && state.phase !== UNDICI_DONE) {
			state.socket = socket;
			undiciAnnounce(request, state, socket);
		}
	});
	whileTracing('undici:request:headers', ({ request, response }) => {
		const state = request[kVnode];
		if (state && state.phase !== UNDICI_DONE) {
			undiciEnd(request, state, response.statusCode || 0, state.socket,
				storeMode ? runsWith(state.call.owner) : -1);
		}
	});
	whileTracing('undici:request:error', ({ request }) => {
		const state = request[kVnode];
		if (state && state.phase !== UNDICI_DONE) {
			undiciEnd(request, state, 0, state.socket, -1);
		}
	});

	// Outgoing TCP that is not HTTP (a Redis or PostgreSQL client's connection, ...): every
	// socket of `net.connect` (diagnostics_channel `net.client.socket`, Node >= 16.18) or of
	// `socket.connect()` gets its write() and push() wrapped.  Every write() is a call (a
	// client call in the writer's context, announced at once as a client request of method TCP
	// to the peer's address and port); the next data read ends every call written before it
	// (status 200: such protocols answer in order, and a pipelined batch is answered together);
	// a close ends them in error (0).  HTTP sockets (http's `_httpMessage` / `parser`, undici's)
	// are left alone.
	const tcpEnd = (socket, status) => {
		const calls = socket[kVnode];
		socket[kVnode] = undefined;
		const at = socketInfo(socket);
		for (const call of calls) {
			httpResponse(true, at.fd, at.id, call.id, status, at.address, at.port, at.localPort);
			clientDone(call);
		}
		if (storeMode && status !== 0) {
			runsNow(calls[0].owner);
		}
	};
	// A client socket (made by net.connect or socket.connect()): TCP_CLIENT, then TCP_FOLLOWED once
	// its first call added the `close` listener that ends its calls.  write() and push() are
	// wrapped once on net.Socket.prototype, not per socket: a socket keeps its shape (no own
	// accessor, closure or listener per connection: http's and undici's client sockets, which are
	// not TCP calls, are left as they are), and net's own `socket.write = Socket.prototype.write`
	// picks up the wrapper.
	const kVnodeTcp = Symbol('deepspan-vnode-tcp');
	const TCP_CLIENT = 1, TCP_FOLLOWED = 2;
	const markTcpClient = (socket) => {
		if (hooked && socket && socket[kVnodeTcp] === undefined) {
			socket[kVnodeTcp] = TCP_CLIENT;
		}
	};
	const tcpCall = (socket) => {
		const call = clientCall();
		if (socket[kVnode] === undefined) {
			socket[kVnode] = [];
		}
		socket[kVnode].push(call);
		if (socket[kVnodeTcp] === TCP_CLIENT) {
			socket[kVnodeTcp] = TCP_FOLLOWED;
			socket.once('close', () => {
				if (socket[kVnode] !== undefined) {
					tcpEnd(socket, 0);
				}
			});
		}
		const at = socketInfo(socket);
		httpRequest(true, at.fd, at.id, call.id, 'TCP', '', at.address, at.port, at.localPort);
	};
	const net = require('net');
	const socketProto = net.Socket.prototype;
	const socketWrite = socketProto.write;
	const socketPush = socketProto.push;
	socketProto.write = function vnodeTcpWrite(chunk, encoding, callback) {
		if (this[kVnodeTcp] !== undefined && hooked && !this._httpMessage && !this.parser &&
			!this[kVnodeHttp]) {
			tcpCall(this);
		}
		return socketWrite.call(this, chunk, encoding, callback);
	};
	socketProto.push = function vnodeTcpPush(chunk, encoding) {
		if (this[kVnode] !== undefined && chunk !== null && this[kVnodeTcp] !== undefined) {
			tcpEnd(this, 200);
		}
		return socketPush.call(this, chunk, encoding);
	};
	whileTracing('net.client.socket', ({ socket }) => markTcpClient(socket));
	// Clients that make their socket themselves (`new net.Socket()` then `connect()`, as npm
	// `pg` does) publish no `net.client.socket`: their connect() marks them.
	const socketConnect = socketProto.connect;
	socketProto.connect = function vnodeSocketConnect(...args) {
		markTcpClient(this);
		return Reflect.apply(socketConnect, this, args);
	};

	// node:http2 (and @grpc/grpc-js, which runs on it).  Node 18 and 20 publish no http2
	// diagnostics_channel events (22 does; the recorder does not rely on them), so the
	// module's entry points are wrapped:
	// - server: every server's (createServer, createSecureServer) `stream` event reports the
	//   request, then runs the listeners as the request's code (runAs); the stream's own
	//   events (grpc-js runs its handlers from its data) too: store mode runs them in the
	//   request's context (one AsyncResource per stream, made in it), hooks mode marks the
	//   stream's native handle (HTTP2STREAM, whose callbacks deliver the data) with the
	//   request.  The request ends at the stream's close;
	// - client: session.request() of every http2.connect() session makes a client call in the
	//   caller's context; the request is announced once the stream has its id (at once on a
	//   connected session, else at `ready`) and ends at its response headers (`response`) or
	//   close.
	// Both sides carry the stream id: the filter matches a client stream with the server
	// stream of the same id on the same connection (ports).
	// The stream events are seen by wrapping `emit` once per stream class (ServerHttp2Stream,
	// ClientHttp2Stream), not per stream: a followed stream carries its state under kVnodeH2,
	// and the recorder adds no listener, closure or own `emit` to a stream (grpc-js's listeners
	// stay the only ones, and store mode makes no context per event: store.run() there made
	// two context frames per event, about 20 events per gRPC stream).
	// wrapHttp2(http2) wraps the module once (below: when the application first loads it).
	const wrapHttp2 = (http2) => {
		const kVnodeH2 = Symbol('deepspan-vnode-http2');
		const streamPorts = (stream) => socketInfo(stream.session && stream.session.socket);
		// A stream's native handle (HTTP2STREAM).  Found by the description of Node's internal
		// symbol, looked up once.
		let kHandle = null;
		const streamHandle = (stream) => {
			if (kHandle === null) {
				kHandle = Object.getOwnPropertySymbols(stream).find((sym) => sym.description === 'kHandle') || false;
			}
			const handle = kHandle ? stream[kHandle] : null;
			return handle && typeof handle.getAsyncId === 'function' ? handle : null;
		};
		// Server stream state: { token, at, scope (store mode: an AsyncResource made in the
		// request's context; hooks mode null), done }.
		const serverStreamEmit = (stream, emit, event, args, state) => {
			if (event === 'close' && !state.done) {
				state.done = true;
				const sent = stream.sentHeaders;
				const status = stream.rstCode ? 0 : Number((sent && sent[':status']) || 0);
				const at = state.at;
				httpResponse(false, at.fd, at.id, state.token.sid, status, at.address, at.port, at.localPort);
			}
			// Stream bookkeeping (listeners added and removed, flow control) runs no request code.
			if (state.scope === null || event === 'newListener' || event === 'removeListener' ||
				event === 'pause' || event === 'resume') {
				return Reflect.apply(emit, stream, args);
			}
			// Reported running at the events that run its code (grpc-js reads its message from
			// them), not at every event of the stream.
			if (event === 'data' || event === 'end') {
				runsNow(state.token);
			}
			return state.scope.runInAsyncScope(Reflect.apply, null, emit, stream, args);
		};
		// Client stream state: { call, method, path, host, phase }.
		const announceClientStream = (stream, state) => {
			const at = streamPorts(stream);
			httpRequest(true, at.fd, at.id, state.call.id, state.method, state.path, state.host, at.port, at.localPort,
				typeof stream.id === 'number' ? stream.id : 0);
			state.phase = UNDICI_SENT;
		};
		const endClientStream = (stream, state, status) => {
			if (state.phase === UNDICI_DONE) {
				return;
			}
			if (state.phase === UNDICI_OPEN) {
				announceClientStream(stream, state);
			}
			const at = streamPorts(stream);
			httpResponse(true, at.fd, at.id, state.call.id, status, state.host, at.port, at.localPort);
			state.phase = UNDICI_DONE;
			clientDone(state.call);
		};
		const clientStreamEmit = (stream, emit, event, args, state) => {
			if (event === 'ready') {
				if (state.phase === UNDICI_OPEN && typeof stream.id === 'number') {
					announceClientStream(stream, state);
				}
			} else if (event === 'response') {
				const headers = args[1];
				endClientStream(stream, state, Number((headers && headers[':status']) || 0));
				runsNow(storeMode ? state.call.owner : null);
			} else if (event === 'close') {
				endClientStream(stream, state, 0);
			}
			return Reflect.apply(emit, stream, args);
		};
		const wrappedStreamClasses = new WeakSet();
		const followStream = (stream, state) => {
			stream[kVnodeH2] = state;
			const proto = Object.getPrototypeOf(stream);
			if (!proto || wrappedStreamClasses.has(proto)) {
				return;
			}
			wrappedStreamClasses.add(proto);
			const emit = proto.emit;
			proto.emit = function vnodeHttp2StreamEmit(event) {
				const followed = this[kVnodeH2];
				if (followed === undefined) {
					return Reflect.apply(emit, this, arguments);
				}
				return followed.call === undefined ? serverStreamEmit(this, emit, event, arguments, followed)
					: clientStreamEmit(this, emit, event, arguments, followed);
			};
		};
		const wrapServer = (server) => {
			const emit = server.emit;
			server.emit = function vnodeHttp2Emit(event, stream, headers) {
				if (event !== 'stream' || !hooked || !stream || typeof stream.id !== 'number') {
					return Reflect.apply(emit, this, arguments);
				}
				const at = streamPorts(stream);
				const token = requestStart(streamHandle(stream), false);
				httpRequest(false, at.fd, at.id, token.sid, String(headers[':method'] || ''),
					String(headers[':path'] || ''), at.address, at.port, at.localPort, stream.id);
				const state = { token, at, scope: null, done: false };
				followStream(stream, state);
				const args = arguments;
				// One context for the request event and the stream's scope (store mode: each
				// store.run() makes two context frames).
				return runAs(token, () => {
					if (storeMode) {
						state.scope = new AsyncResource('DEEPSPAN_STREAM', { requireManualDestroy: true });
						runsNow(token);
					}
					return Reflect.apply(emit, this, args);
				});
			};
			return server;
		};
		for (const name of ['createServer', 'createSecureServer']) {
			const create = http2[name];
			http2[name] = function vnodeHttp2CreateServer(...args) {
				return wrapServer(create.apply(this, args));
			};
		}
		const authorityHost = (authority) => {
			const { host } = originHost(typeof authority === 'string' ? authority : String(authority && authority.href || authority));
			return host;
		};
		const connect = http2.connect;
		http2.connect = function vnodeHttp2Connect(authority, ...args) {
			const session = connect.call(this, authority, ...args);
			const host = authorityHost(authority);
			const request = session.request;
			session.request = function vnodeHttp2Request(headers, ...rest) {
				const stream = request.call(this, headers, ...rest);
				if (!hooked || !stream) {
					return stream;
				}
				const state = {
					call: clientCall(),
					method: String((headers && headers[':method']) || 'GET'),
					path: String((headers && headers[':path']) || '/'),
					host,
					phase: UNDICI_OPEN,
				};
				followStream(stream, state);
				// On a connected session the stream has its id (and was `ready`) already.
				if (typeof stream.id === 'number') {
					announceClientStream(stream, state);
				}
				return stream;
			};
			return session;
		};

	};
	// node:http2 is wrapped when the application first resolves it (a resolve hook of
	// module.registerHooks, Node >= 22.15, for require() and import alike; and
	// process.getBuiltinModule), not at start: loading it loads tls and crypto, which an
	// HTTP/1 service then pays for (its scavenges visit more roots, OpenSSL frees ASN.1
	// objects: about 0.7 points of the recorder's instructions per request on the demo,
	// doc/performance.md).  Without registerHooks (Node 18, 20, 22 before 22.15), or when a
	// preload loaded it already, at once.
	const Module = require('module');
	let http2Wrapped = false;
	const http2Loads = () => {
		if (!http2Wrapped) {
			http2Wrapped = true;
			wrapHttp2(require('http2'));
			// ES module namespaces of node:http2 made before now see the wrappers.
			Module.syncBuiltinESMExports();
		}
	};
	const isHttp2 = (id) => id === 'http2' || id === 'node:http2';
	if (typeof Module.registerHooks === 'function' &&
		!process.moduleLoadList.includes('NativeModule http2')) {
		Module.registerHooks({
			resolve(specifier, context, nextResolve) {
				const resolved = nextResolve(specifier, context);
				if (!http2Wrapped && resolved && resolved.url === 'node:http2') {
					http2Loads();
				}
				return resolved;
			},
		});
		const getBuiltinModule = process.getBuiltinModule;
		if (typeof getBuiltinModule === 'function') {
			process.getBuiltinModule = function vnodeGetBuiltinModule(id) {
				if (!http2Wrapped && isHttp2(id)) {
					http2Loads();
				}
				return Reflect.apply(getBuiltinModule, this, arguments);
			};
		}
	} else {
		http2Loads();
	}

	followSession();
	setInterval(followSession, TRACING_POLL_MS).unref();
}
