# SPDX-License-Identifier: MIT
"""Runs every C unit-test program of the build (tests/unit/test_*) and checks its TAP output."""
import re
import subprocess

import pytest

from conftest import BUILD_DIR

UNIT_DIR = BUILD_DIR / "tests" / "unit"
PROGRAMS = sorted(p for p in UNIT_DIR.glob("test_*") if p.is_file() and p.stat().st_mode & 0o111
                  and p.suffix == "") if UNIT_DIR.is_dir() else []


def test_unit_programs_were_built():
    assert PROGRAMS, f"no unit-test programs in {UNIT_DIR}: run `make check` (or scripts/dev test)"


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_unit_program(program):
    proc = subprocess.run([str(program)], capture_output=True, text=True, timeout=600)
    out = proc.stdout
    plan = re.search(r"^1\.\.(\d+)$", out, re.M)
    assert plan and int(plan.group(1)) > 0, f"{program.name} printed no TAP plan:\n{out}\n{proc.stderr}"
    failures = [line for line in out.splitlines() if line.startswith("not ok")]
    assert proc.returncode == 0 and not failures, f"{program.name} failed:\n{out}\n{proc.stderr}"
