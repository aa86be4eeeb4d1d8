# SPDX-License-Identifier: MIT
"""scripts/deepspan-vm itself: builds (or reuses) the guest image and records a real kernel trace.

Long (minutes; about 10 more the first time, for the image) and needs root, debootstrap and QEMU:
runs only with DEEPSPAN_VM_TESTS=1 (`DEEPSPAN_VM_TESTS=1 tests/run-tests -k test_vm`). Prints the
time of every step (the image's steps come from its timings file).
"""
import os
import shutil
import subprocess
import time

import pytest

from conftest import BUILD_DIR, SRC_DIR, run_babeltrace2

VM = SRC_DIR / "scripts" / "deepspan-vm"

pytestmark = pytest.mark.skipif(os.environ.get("DEEPSPAN_VM_TESTS") != "1",
                                reason="set DEEPSPAN_VM_TESTS=1 to build and boot QEMU guests")


def cache_dir():
    return os.environ.get("DEEPSPAN_VM_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "deepspan-vm")


@pytest.fixture(scope="module")
def image():
    for tool in ("debootstrap", "qemu-system-x86_64", "mkfs.ext4"):
        if not shutil.which(tool):
            pytest.fail(f"{tool} is missing (apt-get install debootstrap qemu-system-x86 e2fsprogs)")
    start = time.monotonic()
    proc = subprocess.run([str(VM), "image"], capture_output=True, text=True, timeout=3600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    print(f"deepspan-vm image: {time.monotonic() - start:.1f} s")
    timings = os.path.join(cache_dir(), "image-timings.txt")
    if os.path.exists(timings):
        print(open(timings).read())
    return cache_dir()


def test_record_one_guest(image, tmp_path):
    share = tmp_path / "share"
    (share / "bin").mkdir(parents=True)
    shutil.copy(BUILD_DIR / "examples" / "microservices" / "ds-loadgen", share / "bin")
    for prog in ("ds-gateway", "ds-account", "ds-store"):
        shutil.copy(BUILD_DIR / "examples" / "microservices" / prog, share / "bin")
    out = tmp_path / "out"
    start = time.monotonic()
    proc = subprocess.run([str(VM), "record", "-s", str(share), "-o", str(out), "--",
                           "ds-loadgen", "--requests=20", "--output=/share/loadgen.json"],
                          capture_output=True, text=True, timeout=1800)
    print(proc.stderr)
    assert proc.returncode == 0, proc.stderr[-4000:]
    print(f"deepspan-vm record (boot + 20 requests + copy): {time.monotonic() - start:.1f} s")
    print((out / "timings.txt").read_text())
    assert (out / "guest1" / "kernel" / "metadata").is_file()
    # the guest's own deepspan-record saw every event it asked for except the documented ones
    log = (out / "guest1.job.log").read_text()
    assert "kernel + user space" in log, log
    metrics = run_babeltrace2(out / "guest1", "-c", "filter.deepspan.span-attrib", "-c", "sink.deepspan.metrics",
                              "-p", 'by="request",format="csv"')
    rows = metrics.stdout.strip().splitlines()
    assert len(rows) >= 21, metrics.stdout
