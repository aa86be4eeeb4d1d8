"""filter.deepspan.sync refuses bad parameters and bad formulas with errors that say what is wrong."""
import pytest

from conftest import run_babeltrace2


def _run_sync(shared_traces, *sync_params):
    base = shared_traces / "synctraces"
    args = ["run", "-c", "src:source.ctf.fs", "-p", f'inputs=["{base / "scp_src"}"]',
            "-c", "dst:source.ctf.fs", "-p", f'inputs=["{base / "scp_dest"}"]',
            "-c", "sync:filter.deepspan.sync"]
    for p in sync_params:
        args += ["-p", p]
    args += ["-c", "out:sink.utils.dummy", "--connect", "src:sync.in0",
             "--connect", "dst:sync.in1", "--connect", "sync:out"]
    proc = run_babeltrace2(*args, check=False)
    assert proc.returncode != 0
    return " ".join(proc.stderr.split())   # the CLI wraps long causes


def test_unknown_reference(shared_traces):
    err = _run_sync(shared_traces, 'reference="nosuchhost"')
    assert ("filter.deepspan.sync: parameter `reference`: no host named `nosuchhost` in the "
            "traces; hosts found: `VM1`, `VM3`.") in err


@pytest.mark.parametrize("value, shown", [('match=["tcp","udp"]', 'string "udp"'),
                                          ("match=[]", "an empty array"),
                                          ("match=3", "signed integer 3")])
def test_bad_match(shared_traces, value, shown):
    err = _run_sync(shared_traces, value)
    assert ("filter.deepspan.sync: parameter `match`: expected an array of `tcp`, `spans`, "
            "`http` (or one of them as a string), got") in err
    assert shown.split()[0] in err


def test_unknown_parameter(shared_traces):
    err = _run_sync(shared_traces, 'referense="VM1"')
    assert "filter.deepspan.sync: unknown parameter `referense`" in err


def test_unreadable_formula(shared_traces, tmp_path):
    missing = tmp_path / "missing.json"
    err = _run_sync(shared_traces, f'formula="{missing}"')
    assert (f'filter.deepspan.sync: parameter `formula`: cannot open "{missing}": '
            "No such file or directory.") in err


def test_invalid_json_formula(shared_traces, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"hosts": [\n  {"name": "VM1",}\n]}')
    err = _run_sync(shared_traces, f'formula="{bad}"')
    assert (f'parameter `formula`: "{bad}" is not valid JSON: expected a member name '
            "at line 2, column 18.") in err


def test_formula_not_a_report(shared_traces, tmp_path):
    other = tmp_path / "other.json"
    other.write_text('{"generator": "something else"}')
    err = _run_sync(shared_traces, f'formula="{other}"')
    assert f'"{other}" is not a sync report (no `hosts` array)' in err


def test_formula_host_without_transform(shared_traces, tmp_path):
    f = tmp_path / "notf.json"
    f.write_text('{"hosts": [{"name": "VM1", "transform": {"x0": 1, "y0": 2}}]}')
    err = _run_sync(shared_traces, f'formula="{f}"')
    assert (f'parameter `formula`: "{f}": host #0: missing or invalid `transform` '
            '(want {"x0": int, "y0": int, "slope": number}).') in err


def test_unwritable_report(shared_traces, tmp_path):
    err = _run_sync(shared_traces, f'report="{tmp_path}/no/such/dir/r.json"')
    assert f'parameter `report`: cannot write "{tmp_path}/no/such/dir/r.json": ' in err


def test_reference_conflicting_with_formula(shared_traces, tmp_path):
    f = tmp_path / "f.json"
    f.write_text('{"reference": "VM3", "hosts": [{"name": "VM3", '
                 '"transform": {"x0": 0, "y0": 0, "slope": 1.0}}]}')
    err = _run_sync(shared_traces, f'formula="{f}"', 'reference="VM1"')
    assert (f'parameter `reference`: `VM1` differs from the reference of formula "{f}" (`VM3`); '
            "drop `reference` or write a new report with it.") in err


def test_host_missing_from_formula_warns(shared_traces, tmp_path):
    f = tmp_path / "f.json"
    f.write_text('{"reference": "VM3", "hosts": [{"name": "VM3", '
                 '"clock_uuid": "1a9a454c-b8e8-4c19-b95d-65840be0962f", '
                 '"transform": {"x0": 0, "y0": 0, "slope": 1.0}}]}')
    base = shared_traces / "synctraces"
    proc = run_babeltrace2("run", "-c", "src:source.ctf.fs", "-p", f'inputs=["{base / "scp_src"}"]',
                           "-c", "sync:filter.deepspan.sync", "-p", f'formula="{f}"',
                           "-c", "out:sink.utils.dummy", "--connect", "src:sync",
                           "--connect", "sync:out")
    err = " ".join(proc.stderr.split())
    assert (f'host VM1 (clock 74715693-28c1-4d0d-bee9-24790a4942b0) is not in formula "{f}": '
            "it keeps its own clock (quality ABSENT)") in err
