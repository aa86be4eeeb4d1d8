"""The ASan+UBSan build: its unit programs and real graphs, with the instrumented plugin preloaded into babeltrace2."""
import os
import pathlib
import re
import subprocess

import pytest

from conftest import ASAN_BUILD_DIR

pytestmark = pytest.mark.skipif(not ASAN_BUILD_DIR, reason="DEEPSPAN_ASAN_BUILD_DIR not set (scripts/dev test sets it)")


def asan_env():
    """Environment that loads the ASan runtime first, so an instrumented plugin works in babeltrace2/python."""
    libasan = subprocess.run(["gcc", "-print-file-name=libasan.so"], capture_output=True, text=True).stdout.strip()
    libubsan = subprocess.run(["gcc", "-print-file-name=libubsan.so"], capture_output=True, text=True).stdout.strip()
    env = dict(os.environ)
    env["LD_PRELOAD"] = f"{libasan}:{libubsan}"
    # babeltrace2 and glib keep global allocations at exit: leaks are not ours to judge there.
    env["ASAN_OPTIONS"] = "detect_leaks=0:abort_on_error=0:exitcode=86:verify_asan_link_order=0"
    env["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1:exitcode=87"
    return env


def asan_unit_programs():
    if not ASAN_BUILD_DIR:
        return []
    unit_dir = pathlib.Path(ASAN_BUILD_DIR) / "tests" / "unit"
    return sorted(p for p in unit_dir.glob("test_*") if p.is_file() and p.suffix == "" and os.access(p, os.X_OK))


@pytest.mark.parametrize("program", asan_unit_programs(), ids=lambda p: p.name)
def test_asan_unit_program(program):
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:exitcode=86", UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=87")
    proc = subprocess.run([str(program)], capture_output=True, text=True, timeout=900, env=env)
    assert proc.returncode == 0, f"{program.name} under ASan/UBSan failed ({proc.returncode}):\n{proc.stdout[-4000:]}\n{proc.stderr[-6000:]}"
    assert re.search(r"^1\.\.[1-9]", proc.stdout, re.M)
