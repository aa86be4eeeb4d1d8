# SPDX-License-Identifier: MIT
"""Shared fixtures of the deepspan test suite (run with /usr/bin/python3 -m pytest, see tests/run-tests)."""
import os
import pathlib
import subprocess

import pytest

SRC_DIR = pathlib.Path(os.environ.get("DEEPSPAN_SRC_DIR", pathlib.Path(__file__).resolve().parent.parent))
BUILD_DIR = pathlib.Path(os.environ.get("DEEPSPAN_BUILD_DIR", SRC_DIR / "build"))
PLUGIN_DIR = pathlib.Path(os.environ.get("DEEPSPAN_PLUGIN_DIR", BUILD_DIR / "plugin-dir"))
# scripts/deepspan-report, and the files sink.deepspan.diff writes into its output directory.
REPORT_SCRIPT = SRC_DIR / "scripts" / "deepspan-report"
DIFF_OUTPUTS = ("a.folded", "b.folded", "diff.folded", "explain.txt", "a.svg", "b.svg", "diff.svg", "report.html")
SHARED_DIR = pathlib.Path(os.environ.get("DEEPSPAN_SHARED_DIR", SRC_DIR.parent / "shared"))
TRACES_DIR = SHARED_DIR / "traces"
ASAN_BUILD_DIR = os.environ.get("DEEPSPAN_ASAN_BUILD_DIR")
BABELTRACE2 = "babeltrace2"


def run_babeltrace2(*args, plugin_dir=None, check=True, timeout=600, env=None):
    """Runs `babeltrace2 --plugin-path=PLUGIN_DIR ARGS...`; returns the CompletedProcess (text)."""
    cmd = [BABELTRACE2, f"--plugin-path={plugin_dir or PLUGIN_DIR}", *map(str, args)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    if check and proc.returncode != 0:
        raise AssertionError(
            f"babeltrace2 failed ({proc.returncode}): {' '.join(cmd)}\n"
            f"--- stderr ---\n{proc.stderr[-6000:]}")
    return proc


def session_processes(sid):
    """`ps` of the processes of session `sid` (a process started with start_new_session=True: its pid), with
    their state and kernel wait channel: where a process that should have exited waits, for a failure text."""
    proc = subprocess.run(["ps", "-s", str(sid), "-o", "pid,ppid,stat,wchan:24,etime,args"], capture_output=True,
                          text=True, check=False)
    return proc.stdout or proc.stderr


def make_scenario_trace(out_dir, truth=None, **params):
    """Writes a source.deepspan.scenario trace with sink.ctf.fs into out_dir (and its ground truth).

    params are scenario parameters; strings are quoted for the CLI, ints passed as is.
    Returns out_dir as a pathlib.Path.
    """
    out_dir = pathlib.Path(out_dir)
    parts = []
    for key, value in params.items():
        if isinstance(value, bool):
            parts.append(f"{key}={'true' if value else 'false'}")
        elif isinstance(value, str):
            parts.append(f'{key}="{value}"')
        else:
            parts.append(f"{key}={value}")
    if truth:
        parts.append(f'truth="{truth}"')
    args = ["-c", "source.deepspan.scenario"]
    if parts:
        args += ["-p", ",".join(parts)]
    args += ["-c", "sink.ctf.fs", "-p", f'path="{out_dir}"']
    run_babeltrace2(*args)
    return out_dir


@pytest.fixture(scope="session")
def plugin_dir():
    so = PLUGIN_DIR / "babeltrace-plugin-deepspan.so"
    assert so.exists(), f"{so} is missing: build first (scripts/dev build)"
    return PLUGIN_DIR


@pytest.fixture(scope="session")
def bt2_plugin(plugin_dir):
    """The deepspan plugin object, loaded with the bt2 Python bindings."""
    import bt2
    plugins = bt2.find_plugins_in_path(str(plugin_dir))
    by_name = {p.name: p for p in plugins}
    assert "deepspan" in by_name, f"no deepspan plugin in {plugin_dir}"
    return by_name["deepspan"]


@pytest.fixture(scope="session")
def shared_traces():
    assert TRACES_DIR.is_dir(), f"{TRACES_DIR} is missing (the shared traces sit beside the repository)"
    return TRACES_DIR
