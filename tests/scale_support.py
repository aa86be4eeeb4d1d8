# SPDX-License-Identifier: MIT
"""What the deepspan-report --sync tests share (test_scale.py, test_scale_per_host.py): running the script,
comparing two report directories, scenario traces made once per module."""
import json
import subprocess

from conftest import DIFF_OUTPUTS, PLUGIN_DIR, REPORT_SCRIPT, make_scenario_trace


def report(*args, check=True, timeout=600):
    proc = subprocess.run([str(REPORT_SCRIPT), f"--plugin-path={PLUGIN_DIR}", *map(str, args)], capture_output=True,
                          text=True, timeout=timeout)
    if check:
        assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


def same_files(a, b):
    for name in DIFF_OUTPUTS:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


def scenario_maker(tmp_path_factory, prefix):
    """get(hosts, cause, seed): a 120-request scenario trace of that many hosts, made once."""
    made = {}

    def get(hosts, cause, seed):
        if (hosts, cause, seed) not in made:
            out = tmp_path_factory.mktemp(f"{prefix}{hosts}{cause}")
            made[(hosts, cause, seed)] = make_scenario_trace(out / "trace", requests=120, hosts=hosts, seed=seed,
                                                             cause=cause, **{"slow-ratio": 0.1})
        return made[(hosts, cause, seed)]
    return get


def assert_fit_is_pass_one(fit, two_pass):
    """The clock fit of deepspan-report (sync `report-only=true` on the pair traces) is the two passes' report but
    pass 2's counts, which a report-only run leaves null (doc/sync.md, "Parameters")."""
    fit, two_pass = json.loads(json.dumps(fit)), json.loads(json.dumps(two_pass))
    assert (fit.pop("mode"), two_pass.pop("mode")) == ("report-only", "two-pass")
    for name in ("high_water_mark_messages", "late_messages"):
        assert fit["reorder"].pop(name) is None
        assert isinstance(two_pass["reorder"].pop(name), int)
    assert fit == two_pass
