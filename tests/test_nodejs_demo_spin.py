# SPDX-License-Identifier: MIT
"""The demo's computation as a fixed number of loop turns (DEMO_SPIN_LOOPS, what bench/nodejs-instructions
gives the services: under valgrind a wall-clock spin runs fewer instructions the more loaded the machine is).
With it, /slow's 50 ms are 50 x DEMO_SPIN_LOOPS turns, whatever the clock says.
"""
import shutil
import statistics

import pytest

from test_nodejs_helpers import run_demo


def slow_latencies(env=None):
    """Latencies (ms) of 6 requests to gateway's /api/slow (users spins 50 ms in each), one at a time."""
    load = run_demo(6, 1, slow_every=1, recorded=False, env=env)
    assert [row["status"] for row in load["latencies"]] == [200] * 6
    return [row["ms"] for row in load["latencies"] if row["path"] == "/api/slow"]


def test_demo_spin_by_loop_turns():
    if not shutil.which("node"):
        pytest.skip("node is not installed")
    # 1 turn per millisecond: the 50 ms spin is 50 turns (microseconds).
    assert statistics.median(slow_latencies({"DEMO_SPIN_LOOPS": "1"})) < 40
    # By the clock: at least the 50 ms.
    assert min(slow_latencies()) >= 50
