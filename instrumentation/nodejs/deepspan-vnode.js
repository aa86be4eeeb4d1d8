'use strict';
// SPDX-License-Identifier: MIT
/*
 * deepspan Node.js recorder: preload it into an unmodified application,
 *
 *     node -r /path/to/deepspan-vnode.js app.js
 *
 * and record the LTTng-UST provider `vnode` (lttng enable-event -u 'vnode:*').
 * It reports every async resource (async_hooks: constructor, before, after,
 * destroy) and every HTTP exchange (diagnostics_channel) through the
 * deepspan_vnode addon; filter.deepspan.nodejs-ctx turns them into spans.
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
	const { asyncContext, httpRequest, httpResponse, tracing, registerType } = addon;
	const executionAsyncId = asyncHooks.executionAsyncId;
	const PHASE_CONSTRUCTOR = 0;

	// Ownership is decided here, in the process, as AsyncLocalStorage does it: every async
	// resource constructed while a request's code runs is marked with that request (a symbol
	// property holding the request's token), and a callback runs for the owner of its resource.
	// The hooks themselves are plain JavaScript; the addon (one native call, the cost that
	// matters: doc/nodejs.md "Recorder overhead") is called only where the filter needs an
	// event:
	// - a server request's own resource (DEEPSPAN_REQUEST, a synthetic id constructed by
	//   the request's parser or stream handle), right after the request;
	// - the construction of a client resource (HTTPCLIENTREQUEST, DEEPSPAN_CLIENT), with its
	//   owner's id as trigger: the filter gives the client span that parent;
	// - a change of the request whose code runs (`after` of the old one's id, `before` of the
	//   new one's id, in one call): not every callback, and never unowned ones.
	// The hooks are enabled only while a session records vnode:async_context (checked at start
	// and every TRACING_POLL_MS), so an untraced application pays nothing for them; resources
	// made before a session starts have no owner.  No destroy hook (it makes V8 track the
	// collection of every promise).  A resource type is passed as a small integer (its name
	// registered once with the addon).
	const { switchTo } = addon;
	const executionAsyncResource = asyncHooks.executionAsyncResource;
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
	// Synthetic request ids: far above any async id of a process (they are counters).
	const REQUEST_ID_BASE = 2 ** 50;
	let requestCount = 0;
	// The owner (request token or null) of every callback running, innermost last, and the
	// request last reported running.
	let owners = [];
	let active = null;
	const sidOf = (token) => (token === null ? -1 : token.sid);
	const report = (owner) => {
		if (owner !== active) {
			switchTo(sidOf(active), sidOf(owner));
			active = owner;
		}
	};
	let switchQueued = false;
	const switchDone = () => {
		switchQueued = false;
	};
	const currentOwner = () => (owners.length > 0 ? owners[owners.length - 1] : null);
	const hook = asyncHooks.createHook({
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
				if (!switchQueued) {
					switchQueued = true;
					queueMicrotask(switchDone);
				}
				return;
			}
			report(token);
		},
	});
	// A server request has started: its token (a synthetic id, constructed by the request's
	// resource `ctxId` so that the filter gives it the request) owns `resource`, whose later
	// callbacks are the request's, and, when `runsNow` (HTTP/1: the request event fires in
	// its parser's callback), the rest of the current callback.
	const requestStart = (ctxId, resource, runsNow) => {
		const token = { sid: REQUEST_ID_BASE + ++requestCount };
		asyncContext(PHASE_CONSTRUCTOR, token.sid, ctxId, ctxId, typeOf('DEEPSPAN_REQUEST'));
		if (resource) {
			resource[kOwner] = token;
		}
		if (runsNow && owners.length > 0) {
			owners[owners.length - 1] = token;
			report(token);
		}
		return token;
	};
	const TRACING_POLL_MS = 250;
	let hooked = false;
	const followSession = () => {
		const on = tracing();
		if (on !== hooked) {
			hooked = on;
			owners = [];
			active = null;
			switchQueued = false;
			if (on) {
				hook.enable();
			} else {
				hook.disable();
			}
		}
	};
	followSession();
	setInterval(followSession, TRACING_POLL_MS).unref();

	const kVnode = Symbol('deepspan-vnode');
	const socketFd = (socket) => (socket && socket._handle && typeof socket._handle.fd === 'number'
		? socket._handle.fd : -1);
	const socketAsyncId = (socket) => (socket && socket._handle && socket._handle.getAsyncId
		? socket._handle.getAsyncId() : -1);
	// A port <= 0 is not a port: socket.localPort is 0 (or undefined) before the connect.
	const portOr = (value, fallback) => (typeof value === 'number' && value > 0 ? value : fallback);

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
	diagnostics.subscribe('http.server.request.start', ({ request, socket, server }) => {
		const ctxId = executionAsyncId();
		learnExpressApp(server);
		httpRequest(false, socketFd(socket), socketAsyncId(socket), ctxId,
			request.method || '', routeOf(request.method, request.url || ''), socket.remoteAddress || '',
			portOr(socket.remotePort, -1), portOr(socket.localPort, -1));
		if (hooked) {
			request[kVnode] = requestStart(ctxId, executionAsyncResource(), true);
		}
	});
	// The response names its request by the request's synthetic id.
	diagnostics.subscribe('http.server.response.finish', ({ request, response, socket }) => {
		const token = request && request[kVnode];
		if (request && request.route && typeof request.route.path === 'string') {
			addRoute(request.method, `${typeof request.baseUrl === 'string' ? request.baseUrl : ''}${request.route.path}`);
		}
		httpResponse(false, socketFd(socket), socketAsyncId(socket),
			token ? token.sid : executionAsyncId(),
			response.statusCode || 0, socket.remoteAddress || '',
			portOr(socket.remotePort, -1), portOr(socket.localPort, -1));
	});
	// ctx_id of a request: the async id of its HTTP parser resource (HTTPINCOMINGMESSAGE,
	// HTTPCLIENTREQUEST).  The server side publishes from inside it; the client side
	// publishes once the request is written, from wherever that completes.
	const parserAsyncId = (request) => (request.parser && request.parser.getAsyncId
		? request.parser.getAsyncId() : executionAsyncId());

	diagnostics.subscribe('http.client.request.start', ({ request }) => {
		const socket = request.socket;
		httpRequest(true, socketFd(socket), socketAsyncId(socket), parserAsyncId(request),
			request.method || '', request.path || '', request.host || '',
			portOr(socket && socket.remotePort, requestedPort(request)),
			portOr(socket && socket.localPort, -1));
	});
	diagnostics.subscribe('http.client.response.finish', ({ request, response }) => {
		const socket = request.socket || response.socket;
		httpResponse(true, socketFd(socket), socketAsyncId(socket), executionAsyncId(),
			response.statusCode || 0, request.host || '',
			portOr(socket && socket.remotePort, requestedPort(request)),
			portOr(socket && socket.localPort, -1));
	});

	// fetch() / undici (Node >= 18): its diagnostics_channel events, mapped onto the http
	// client events.  undici has no async resource per request: the recorder makes one
	// (DEEPSPAN_CLIENT, an AsyncResource) at `undici:request:create`, in the caller's
	// context, so the filter gives it the caller's owner and starts the client span there.
	// Its async id is the request's ctx_id; `undici:client:sendHeaders` announces the request
	// with its socket's ports (again on a retry, with the new socket), `undici:request:headers`
	// ends it, `undici:request:error` ends it with status 0 (aborted, refused, reset).
	const { AsyncResource } = asyncHooks;
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
		httpRequest(true, socketFd(socket), socketAsyncId(socket), state.resource.asyncId(),
			request.method || '', request.path || '', state.host,
			portOr(socket && socket.remotePort, state.port), portOr(socket && socket.localPort, -1));
		state.phase = UNDICI_SENT;
	};
	const undiciEnd = (request, state, status, socket) => {
		if (state.phase === UNDICI_OPEN) {
			undiciAnnounce(request, state, null);
		}
		httpResponse(true, socketFd(socket), socketAsyncId(socket), state.resource.asyncId(), status,
			state.host, portOr(socket && socket.remotePort, state.port),
			portOr(socket && socket.localPort, -1));
		state.phase = UNDICI_DONE;
		state.resource.emitDestroy();
		request[kVnode] = undefined;
	};
	diagnostics.subscribe('undici:request:create', ({ request }) => {
		if (!hooked) {
			return;
		}
		const { host, port } = originHost(request.origin);
		request[kVnode] = { resource: new AsyncResource('DEEPSPAN_CLIENT', { requireManualDestroy: true }),
			host, port, phase: UNDICI_OPEN, socket: null };
	});
	// undici's sockets are HTTP: not TCP calls (below).
	diagnostics.subscribe('undici:client:connected', ({ socket }) => {
		if (socket) {
			socket[kVnodeHttp] = true;
		}
	});
	diagnostics.subscribe('undici:client:sendHeaders', ({ request, socket }) => {
		const state = request[kVnode];
		if (state && state.phase !== UNDICI_DONE) {
			state.socket = socket;
			undiciAnnounce(request, state, socket);
		}
	});
	diagnostics.subscribe('undici:request:headers', ({ request, response }) => {
		const state = request[kVnode];
		if (state && state.phase !== UNDICI_DONE) {
			undiciEnd(request, state, response.statusCode || 0, state.socket);
		}
	});
	diagnostics.subscribe('undici:request:error', ({ request }) => {
		const state = request[kVnode];
		if (state && state.phase !== UNDICI_DONE) {
			undiciEnd(request, state, 0, state.socket);
		}
	});

	// Outgoing TCP that is not HTTP (a Redis or PostgreSQL client's connection, ...): every
	// socket of `net.connect` (diagnostics_channel `net.client.socket`, Node >= 16.18) or of
	// `socket.connect()` gets its write() and push() wrapped.  Every write() is a call (a DEEPSPAN_CLIENT resource in the
	// writer's context, announced at once as a client request of method TCP to the peer's
	// address and port); the next data read ends every call written before it (status 200:
	// such protocols answer in order, and a pipelined batch is answered together); a close
	// ends them in error (0).  HTTP sockets (http's `_httpMessage` / `parser`, undici's) are
	// left alone.
	const tcpEnd = (socket, status) => {
		const calls = socket[kVnode];
		socket[kVnode] = undefined;
		const fd = socketFd(socket), sockId = socketAsyncId(socket);
		const address = socket.remoteAddress || '', port = portOr(socket.remotePort, -1);
		const localPort = portOr(socket.localPort, -1);
		for (const call of calls) {
			httpResponse(true, fd, sockId, call.asyncId(), status, address, port, localPort);
			call.emitDestroy();
		}
	};
	const kVnodeTcp = Symbol('deepspan-vnode-tcp');
	const wrapTcp = (socket) => {
		if (!hooked || !socket || typeof socket.write !== 'function' || socket[kVnodeTcp]) {
			return;
		}
		socket[kVnodeTcp] = true;
		// An accessor, not a plain property: net's connect() and end() assign socket.write
		// themselves (Socket.prototype.write, writeAfterFIN); those become the inner write.
		let write = socket.write;
		const push = socket.push;
		const vnodeTcpWrite = function vnodeTcpWrite(...args) {
			if (hooked && !this._httpMessage && !this.parser && !this[kVnodeHttp]) {
				const call = new AsyncResource('DEEPSPAN_CLIENT', { requireManualDestroy: true });
				if (this[kVnode] === undefined) {
					this[kVnode] = [];
				}
				this[kVnode].push(call);
				httpRequest(true, socketFd(this), socketAsyncId(this), call.asyncId(), 'TCP', '',
					this.remoteAddress || '', portOr(this.remotePort, -1),
					portOr(this.localPort, -1));
			}
			return write.apply(this, args);
		};
		Object.defineProperty(socket, 'write', {
			configurable: true,
			get: () => vnodeTcpWrite,
			set: (value) => { write = value; },
		});
		socket.push = function vnodeTcpPush(chunk, encoding) {
			if (chunk !== null && this[kVnode] !== undefined) {
				tcpEnd(this, 200);
			}
			return push.call(this, chunk, encoding);
		};
		socket.once('close', () => {
			if (socket[kVnode] !== undefined) {
				tcpEnd(socket, 0);
			}
		});
	};
	diagnostics.subscribe('net.client.socket', ({ socket }) => wrapTcp(socket));
	// Clients that make their socket themselves (`new net.Socket()` then `connect()`, as npm
	// `pg` does) publish no `net.client.socket`: their connect() wraps them.
	const net = require('net');
	const socketConnect = net.Socket.prototype.connect;
	net.Socket.prototype.connect = function vnodeSocketConnect(...args) {
		wrapTcp(this);
		return socketConnect.apply(this, args);
	};

	// node:http2 (and @grpc/grpc-js, which runs on it).  Node 20 publishes no http2
	// diagnostics_channel events, so the module's entry points are wrapped:
	// - server: every server's (createServer, createSecureServer) `stream` event reports the
	//   request with ctx_id = the stream's native handle, then runs the listeners inside a
	//   DEEPSPAN_STREAM resource of its own (AsyncResource.runInAsyncScope), so concurrent
	//   streams of one session each own what their handlers create; it ends at the close;
	// - client: session.request() of every http2.connect() session makes a DEEPSPAN_CLIENT
	//   resource in the caller's context; the request is announced when the stream is sent
	//   (`ready`: its id is known) and ends at its response headers (`response`) or close.
	// Both sides carry the stream id: the filter matches a client stream with the server
	// stream of the same id on the same connection (ports).
	const http2 = require('http2');
	const streamPorts = (stream) => {
		const socket = stream.session && stream.session.socket;
		return {
			socket,
			address: (socket && socket.remoteAddress) || '',
			port: portOr(socket && socket.remotePort, -1),
			localPort: portOr(socket && socket.localPort, -1),
		};
	};
	// A stream's native handle (HTTP2STREAM): the resource whose callbacks deliver the
	// stream's data (grpc-js runs its handlers from them).  Found by the description of
	// Node's internal symbol, looked up once.
	let kHandle = null;
	const streamHandle = (stream) => {
		if (kHandle === null) {
			kHandle = Object.getOwnPropertySymbols(stream).find((sym) => sym.description === 'kHandle') || false;
		}
		const handle = kHandle ? stream[kHandle] : null;
		return handle && typeof handle.getAsyncId === 'function' ? handle : null;
	};
	const wrapServer = (server) => {
		const emit = server.emit;
		server.emit = function vnodeHttp2Emit(event, stream, headers, ...rest) {
			if (event !== 'stream' || !hooked || !stream || typeof stream.id !== 'number') {
				return emit.call(this, event, stream, headers, ...rest);
			}
			// The request is owned from its handle on (ctx_id): the handle's callbacks are the
			// request's; a DEEPSPAN_STREAM resource, made after the request event so that it
			// is the request's too, runs the `stream` listeners.  The response names the
			// request by its synthetic id.
			const at = streamPorts(stream);
			const handle = streamHandle(stream);
			const resource = new AsyncResource('DEEPSPAN_STREAM', handle ?
				{ triggerAsyncId: handle.getAsyncId(), requireManualDestroy: true } :
				{ requireManualDestroy: true });
			let token = null;
			const announce = () => {
				const ctxId = handle ? handle.getAsyncId() : resource.asyncId();
				httpRequest(false, socketFd(at.socket), socketAsyncId(at.socket), ctxId,
					String(headers[':method'] || ''), String(headers[':path'] || ''), at.address,
					at.port, at.localPort, stream.id);
				token = requestStart(ctxId, handle, false);
				resource[kOwner] = token;
			};
			stream.once('close', () => {
				const sent = stream.sentHeaders;
				const status = stream.rstCode ? 0 : Number((sent && sent[':status']) || 0);
				httpResponse(false, socketFd(at.socket), socketAsyncId(at.socket),
					token ? token.sid : resource.asyncId(), status, at.address, at.port, at.localPort);
				resource.emitDestroy();
			});
			if (handle) {
				announce();
			}
			return resource.runInAsyncScope(() => {
				if (!handle) {
					announce();
				}
				return emit.call(this, event, stream, headers, ...rest);
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
			const resource = new AsyncResource('DEEPSPAN_CLIENT', { requireManualDestroy: true });
			const method = String((headers && headers[':method']) || 'GET');
			const path = String((headers && headers[':path']) || '/');
			let phase = UNDICI_OPEN;
			const announce = () => {
				const at = streamPorts(stream);
				httpRequest(true, socketFd(at.socket), socketAsyncId(at.socket), resource.asyncId(),
					method, path, host, at.port, at.localPort, typeof stream.id === 'number' ? stream.id : 0);
				phase = UNDICI_SENT;
			};
			const end = (status) => {
				if (phase === UNDICI_DONE) {
					return;
				}
				if (phase === UNDICI_OPEN) {
					announce();
				}
				const at = streamPorts(stream);
				httpResponse(true, socketFd(at.socket), socketAsyncId(at.socket), resource.asyncId(),
					status, host, at.port, at.localPort);
				phase = UNDICI_DONE;
				resource.emitDestroy();
			};
			stream.once('ready', () => {
				if (phase === UNDICI_OPEN) {
					announce();
				}
			});
			stream.once('response', (responseHeaders) => end(Number(responseHeaders[':status'] || 0)));
			stream.once('close', () => end(0));
			return stream;
		};
		return session;
	};
}
