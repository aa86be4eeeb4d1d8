# SPDX-License-Identifier: MIT
"""A whole deepspan graph under valgrind memcheck: no invalid access, no use of uninitialised values,
no definite leak whose stack goes through deepspan code."""
import re
import shutil
import subprocess

import pytest

from conftest import PLUGIN_DIR

pytestmark = pytest.mark.skipif(not shutil.which("valgrind"), reason="valgrind is not installed")


def run_valgrind(tmp_path, *args):
    log = tmp_path / "valgrind.log"
    cmd = ["valgrind", "--error-exitcode=99", "--leak-check=full", "--show-leak-kinds=definite",
           "--num-callers=30", f"--log-file={log}",
           "babeltrace2", f"--plugin-path={PLUGIN_DIR}", *map(str, args)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1200, cwd=tmp_path)
    text = log.read_text()
    return proc, text


def deepspan_definite_leaks(text):
    """Loss records ("definitely lost") whose stack has a frame in the deepspan plugin."""
    records = re.split(r"\n==\d+== \n", text)
    return [r for r in records if "definitely lost" in r and "babeltrace-plugin-deepspan" in r]


def test_valgrind_scenario_pipeline(tmp_path, plugin_dir):
    proc, text = run_valgrind(
        tmp_path, "-c", "source.deepspan.scenario", "-p", 'requests=25,seed=3,cause="lock",slow-ratio=0.3',
        "-c", "filter.deepspan.sync", "-c", "filter.deepspan.span-attrib", "-p", "pass-through=false",
        "-c", "sink.deepspan.diff", "-p", f'output-dir="{tmp_path / "report"}"')
    summary = re.search(r"ERROR SUMMARY: (\d+) errors", text)
    assert summary, text[-3000:]
    assert proc.returncode == 0 and int(summary.group(1)) == 0, text[-8000:]
    assert not deepspan_definite_leaks(text), "\n\n".join(deepspan_definite_leaks(text))[:8000]


def test_valgrind_metrics_on_real_trace(tmp_path, plugin_dir, shared_traces):
    proc, text = run_valgrind(tmp_path, shared_traces / "multi-domains", "-c", "filter.deepspan.span-attrib",
                              "-p", "pass-through=false", "-c", "sink.deepspan.metrics", "-p", 'by="thread"')
    summary = re.search(r"ERROR SUMMARY: (\d+) errors", text)
    assert summary and int(summary.group(1)) == 0 and proc.returncode == 0, text[-8000:]
    assert not deepspan_definite_leaks(text)
