# SPDX-License-Identifier: MIT
"""The recorder follows LTTng sessions through the addon's watcher thread (doc/nodejs.md, "The session
watcher"): a session started after the process subscribes it to its channels, the end of the session
unsubscribes it, and the recorder puts no timer in the application's loop (a JavaScript poll woke every
preloaded process 4 times a second) nor keeps the process alive.
"""
import json
import os
import pathlib
import subprocess
import time
import uuid

import pytest

from test_nodejs_helpers import ADDON, RECORDER, capture_unavailable, services_node

# Prints the subscription state of http.server.request.start at each change; exits when its stdin closes.
PROBE = """
const dc = require('diagnostics_channel');
let last = null;
const check = setInterval(() => {
	const now = dc.hasSubscribers('http.server.request.start');
	if (now !== last) {
		last = now;
		process.stdout.write(JSON.stringify({ subscribed: now }) + '\\n');
	}
}, 20);
process.stdin.on('end', () => clearInterval(check));
process.stdin.resume();
"""


def read_line(proc, deadline_s=10):
    """The probe's next JSON line (its stdout is line-buffered through the pipe)."""
    start = time.monotonic()
    line = proc.stdout.readline()
    assert line, f"the probe ended: {proc.stderr.read()}"
    assert time.monotonic() - start < deadline_s
    return json.loads(line)


def someone_records():
    proc = subprocess.run([services_node(), "-e", f"process.stdout.write(String(require({json.dumps(str(ADDON))})"
                           ".tracing()))"], capture_output=True, text=True, timeout=60)
    return proc.stdout == "true"


def test_a_session_started_and_stopped_later_is_followed(tmp_path):
    reason = capture_unavailable()
    if reason:
        pytest.skip(reason)
    if someone_records():
        pytest.skip("a session of this machine records vnode:* now: the recorder follows it")
    proc = subprocess.Popen([services_node(), "-r", str(RECORDER), "-e", PROBE], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    session = f"deepspan-nodejs-watch-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    created = False
    try:
        assert read_line(proc) == {"subscribed": False}
        subprocess.run(["lttng", "create", session, f"--output={tmp_path / 'trace'}"], check=True,
                       capture_output=True)
        created = True
        subprocess.run(["lttng", "enable-event", "-u", "vnode:*", "-s", session], check=True, capture_output=True)
        subprocess.run(["lttng", "start", session], check=True, capture_output=True)
        assert read_line(proc) == {"subscribed": True}
        subprocess.run(["lttng", "destroy", session], check=True, capture_output=True)
        created = False
        assert read_line(proc) == {"subscribed": False}
        # Its stdin closed, the probe's loop has nothing left: the watcher does not keep it alive.
        proc.stdin.close()
        assert proc.wait(timeout=10) == 0, proc.stderr.read()
    finally:
        if created:
            subprocess.run(["lttng", "destroy", session], capture_output=True)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()


def main_thread_wakeups(pid):
    """Voluntary context switches of a process's main thread so far."""
    for line in pathlib.Path(f"/proc/{pid}/task/{pid}/status").read_text().splitlines():
        if line.startswith("voluntary_ctxt_switches:"):
            return int(line.split()[1])
    raise AssertionError(f"no voluntary_ctxt_switches for {pid}")


def test_an_idle_application_is_not_woken():
    """Preloaded, no session: the main thread of an idle application sleeps (the former 250 ms poll woke it
    6 times in 1.5 s)."""
    if not ADDON.exists():
        pytest.skip(f"{ADDON} is missing: build with the instrumentation")
    proc = subprocess.Popen([services_node(), "-r", str(RECORDER), "-e", "setTimeout(() => {}, 4000)"])
    try:
        time.sleep(1.5)
        before = main_thread_wakeups(proc.pid)
        time.sleep(1.5)
        assert main_thread_wakeups(proc.pid) - before <= 1
        assert proc.wait(timeout=10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
