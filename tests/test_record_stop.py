# SPDX-License-Identifier: MIT
"""deepspan-record's stop (doc/instrumentation.md, "Recording"): `lttng stop` waits for the consumer daemon
to write every buffer; the recorder says so while it waits, and a second Ctrl-C stops waiting. A stand-in
`lttng` (the LTTNG environment variable) whose `stop` never returns makes that wait, with no session daemon."""
import os
import signal
import subprocess
import time

from conftest import SRC_DIR, session_processes

RECORD = SRC_DIR / "scripts" / "deepspan-record"

FAKE_LTTNG = """#!/bin/sh
echo "$*" >> "{log}"
case "$1" in
list) [ "$2" = -k ] && exit 1; exit 0 ;;
stop) exec sleep 600 ;;
*) exit 0 ;;
esac
"""


def start_recorder(tmp_path, ignore_sigint=False):
    log = tmp_path / "calls"
    fake = tmp_path / "lttng"
    fake.write_text(FAKE_LTTNG.format(log=log))
    fake.chmod(0o755)
    env = dict(os.environ, LTTNG=str(fake))
    # ignore_sigint: started as a non-interactive shell starts a background job (`deepspan-record ... &`)
    ignore = (lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if ignore_sigint else None
    recorder = subprocess.Popen([str(RECORD), "--no-kernel", "-n", "slowstop", "-o", str(tmp_path / "trace")],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                                start_new_session=True, preexec_fn=ignore)
    deadline = time.monotonic() + 30
    while not (log.exists() and "start slowstop" in log.read_text()):
        assert recorder.poll() is None and time.monotonic() < deadline, recorder.communicate()
        time.sleep(0.05)
    return recorder, log


def wait_for_call(recorder, log, call):
    deadline = time.monotonic() + 30
    while call not in log.read_text():
        assert recorder.poll() is None and time.monotonic() < deadline, \
            f"no `lttng {call}`; lttng calls: {log.read_text().splitlines()}; processes:\n{session_processes(recorder.pid)}"
        time.sleep(0.05)


def interrupt_twice(tmp_path, signum, pause, ignore_sigint=False):
    """Starts the recorder, sends `signum`, waits `pause` s into its `lttng stop`, sends `signum` again;
    returns (exit status, stdout, stderr, lttng calls)."""
    recorder, log = start_recorder(tmp_path, ignore_sigint)
    try:
        recorder.send_signal(signum)
        wait_for_call(recorder, log, "stop slowstop")
        time.sleep(pause)
        assert recorder.poll() is None, "the recorder waits for lttng stop"
        recorder.send_signal(signum)
        out, err = recorder.communicate(timeout=20)
    finally:
        if recorder.poll() is None:
            os.killpg(recorder.pid, signal.SIGKILL)
            recorder.communicate()
    return recorder.returncode, out, err, log.read_text().splitlines()


def test_second_interrupt_stops_waiting_for_lttng_stop(tmp_path):
    status, out, err, calls = interrupt_twice(tmp_path, signal.SIGINT, 0.5)
    assert status == 130, err
    assert "stopped waiting for lttng stop of session slowstop: the trace may lack its last packets" in err
    assert calls[-1] == "destroy --no-wait slowstop", calls
    assert "Analyse with" not in out, "no analysis command for a trace that may be incomplete"


def test_interrupt_stops_a_recorder_started_with_sigint_ignored(tmp_path):
    """A background job of a non-interactive shell starts with SIGINT ignored, which bash cannot trap: the
    recorder runs itself again with SIGINT's default action, so Ctrl-C and `kill -INT` still stop it."""
    status, _, err, calls = interrupt_twice(tmp_path, signal.SIGINT, 0.5, ignore_sigint=True)
    assert status == 130, err
    assert calls[-1] == "destroy --no-wait slowstop", calls
    assert "SIGINT is ignored" not in err


def test_a_long_stop_is_announced(tmp_path):
    status, _, err, _ = interrupt_twice(tmp_path, signal.SIGTERM, 10.8)
    assert "still waiting for lttng stop (10 s): the consumer daemon is writing the buffers; " \
        "Ctrl-C again stops waiting" in err
    assert status == 130, err
