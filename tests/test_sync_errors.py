# SPDX-License-Identifier: MIT
"""filter.deepspan.sync refuses bad parameters and bad formulas with errors that say what is wrong."""
import json

import pytest

from conftest import run_babeltrace2


def _sync_graph(shared_traces, *sync_params, check):
    """Runs the two synctraces hosts through filter.deepspan.sync (with sync_params) into a dummy sink."""
    base = shared_traces / "synctraces"
    args = ["run", "-c", "src:source.ctf.fs", "-p", f'inputs=["{base / "scp_src"}"]',
            "-c", "dst:source.ctf.fs", "-p", f'inputs=["{base / "scp_dest"}"]',
            "-c", "sync:filter.deepspan.sync"]
    for p in sync_params:
        args += ["-p", p]
    args += ["-c", "out:sink.utils.dummy", "--connect", "src:sync.in0",
             "--connect", "dst:sync.in1", "--connect", "sync:out"]
    return run_babeltrace2(*args, check=check)


def _run_sync(shared_traces, *sync_params):
    proc = _sync_graph(shared_traces, *sync_params, check=False)
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
    assert (f'parameter `formula`: "{f}": host #0 (`VM1`): missing or invalid `transform` '
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


VM1_UUID = "74715693-28c1-4d0d-bee9-24790a4942b0"
VM3_UUID = "1a9a454c-b8e8-4c19-b95d-65840be0962f"
REGENERATE = ("re-run filter.deepspan.sync with `report=` on these traces to regenerate it "
              '(doc/sync.md, "Formula").')


def _host(name, uuid, **fields):
    host = {"name": name, "clock_uuid": uuid,
            "transform": {"x0": 1361214092915325958, "y0": 1361214092834760756,
                          "slope": 0.9999413783703139}}
    host.update(fields)
    return host


def _formula(tmp_path, hosts=None, **top):
    doc = {"reference": "VM3", "reorder": {"window_ns": 1700},
           "hosts": hosts if hosts is not None else
           [_host("VM1", VM1_UUID), _host("VM3", VM3_UUID,
                                          transform={"x0": 0, "y0": 0, "slope": 1.0})]}
    doc.update(top)
    path = tmp_path / "formula.json"
    path.write_text(json.dumps(doc))
    return path


def _vm1(tmp_path, **fields):
    """A formula whose host #0 (VM1) has `fields` replaced (transform members by `tf_<name>`)."""
    tf = {"x0": 1361214092915325958, "y0": 1361214092834760756, "slope": 0.9999413783703139}
    for k in list(fields):
        if k.startswith("tf_"):
            tf[k[3:]] = fields.pop(k)
    return _formula(tmp_path, [_host("VM1", VM1_UUID, transform=tf, **fields),
                               _host("VM3", VM3_UUID, transform={"x0": 0, "y0": 0, "slope": 1.0})])


def test_formula_applies_cleanly(shared_traces, tmp_path):
    """The valid base of the cases below runs without a word."""
    f = _formula(tmp_path)
    proc = _sync_graph(shared_traces, f'formula="{f}"', check=True)
    assert proc.stderr == ""


@pytest.mark.parametrize("fields, text", [
    ({"tf_slope": 1e300}, "host #0 (`VM1`): `transform.slope` must be a number within 1000 ppm of 1 "
                          "([0.999, 1.001]: no real clock drifts more), got 1.0000000000000001e+300; "),
    ({"tf_slope": 1.0011}, "got 1.0011000000000001; "),
    ({"tf_slope": -1.0}, "`transform.slope` must be a number within 1000 ppm of 1"),
    ({"tf_slope": "1"}, "`transform.slope` must be a number within 1000 ppm of 1 ([0.999, 1.001]: "
                        "no real clock drifts more), got a string; "),
    ({"tf_y0": -5}, "host #0 (`VM1`): `transform.y0` must be an integer (ns) in [0, 9223372036854775807], got -5; "),
    ({"tf_x0": 1.5}, "`transform.x0` must be an integer (ns) in [0, 9223372036854775807], got 1.5; "),
    ({"tf_x0": 9223372036854775808}, "`transform.x0` must be an integer (ns) in [0, 9223372036854775807], "
                                     "got 9.2233720368547758e+18; "),
    ({"tf_y0": 9223372036854775807, "tf_x0": 0, "last_ns": 1361214092915325958},
     "host #0 (`VM1`): `transform` maps `last_ns` (1361214092915325958 ns) outside the int64 "
     "nanosecond range; "),
    ({"first_ns": 20, "last_ns": 10}, "`first_ns` (20) is after `last_ns` (10); "),
    ({"accuracy_ns": -3}, "`accuracy_ns` must be an integer (ns) in [0, 9223372036854775807], got -3; "),
    ({"clock_uuid": "not-a-uuid"}, '`clock_uuid` "not-a-uuid" is not a UUID (want 8-4-4-4-12 hex '
                                   'digits, or "" for a clock without one); '),
    ({"clock_uuid": 7}, "host #0 (`VM1`): `clock_uuid` must be a string, got 7; "),
    ({"origin_is_unix_epoch": "yes"}, "`origin_is_unix_epoch` must be true or false; "),
])
def test_formula_field_out_of_range(shared_traces, tmp_path, fields, text):
    f = _vm1(tmp_path, **fields)
    err = _run_sync(shared_traces, f'formula="{f}"')
    assert f'filter.deepspan.sync: parameter `formula`: "{f}": ' in err
    assert text in err
    assert REGENERATE in err


@pytest.mark.parametrize("top, text", [
    ({"reorder": {"window_ns": -1}}, "`reorder.window_ns` must be an integer (ns) in [0, 86400000000000], got -1; "),
    ({"reorder": {"window_ns": 1e20}}, "`reorder.window_ns` must be an integer (ns) in [0, 86400000000000], "
                                       "got 1e+20; "),
    ({"reorder": 5}, "`reorder` must be an object; "),
    ({"reference": "VM9"}, "`reference` `VM9` names none of its hosts (`VM1`, `VM3`); "),
    ({"reference": 3}, "`reference` must be a string, got 3; "),
])
def test_formula_top_level_out_of_range(shared_traces, tmp_path, top, text):
    f = _formula(tmp_path, **top)
    err = _run_sync(shared_traces, f'formula="{f}"')
    assert f'parameter `formula`: "{f}": {text}' in err and REGENERATE in err


APPLIES_TO_HINT = ("drop `applies_to` or list in it names of the formula's `hosts` "
                   '(doc/sync.md, "Formula").')


@pytest.mark.parametrize("applies_to, text", [
    ("VM1", "`applies_to` must be an array of host names, got a string; "),
    (["VM1", 3], "`applies_to` #1 must be a host name (a string), got 3; "),
    (["VM9"], "`applies_to` #0 `VM9` names none of its hosts (`VM1`, `VM3`); "),
])
def test_formula_bad_applies_to(shared_traces, tmp_path, applies_to, text):
    """A wrong `applies_to` is refused with what and where, not ignored (which would warn of the hosts it
    leaves out, or silence the warning for the wrong ones)."""
    f = _formula(tmp_path, applies_to=applies_to)
    err = _run_sync(shared_traces, f'formula="{f}"')
    assert f'filter.deepspan.sync: parameter `formula`: "{f}": {text}{APPLIES_TO_HINT}' in err


def test_formula_applies_to_a_host(shared_traces, tmp_path):
    """A valid `applies_to` runs as the formula without it (here every host is in the input)."""
    f = _formula(tmp_path, applies_to=["VM1"])
    proc = _sync_graph(shared_traces, f'formula="{f}"', check=True)
    assert proc.stderr == ""


def test_formula_duplicate_hosts(shared_traces, tmp_path):
    f = _formula(tmp_path, [_host("VM1", VM1_UUID), _host("VM1", VM3_UUID)])
    err = _run_sync(shared_traces, f'formula="{f}"')
    assert f'"{f}": hosts #0 and #1 are both named `VM1`; ' + REGENERATE in err
    f = _formula(tmp_path, [_host("VM1", VM1_UUID), _host("VM3", VM1_UUID.upper())])
    err = _run_sync(shared_traces, f'formula="{f}"')
    assert f'"{f}": hosts #0 and #1 have the same `clock_uuid` {VM1_UUID}; ' + REGENERATE in err


def test_formula_host_not_an_object(shared_traces, tmp_path):
    f = _formula(tmp_path, [_host("VM1", VM1_UUID), 42])
    err = _run_sync(shared_traces, f'formula="{f}"')
    assert f'"{f}": host #1: not an object; ' + REGENERATE in err


def test_formula_of_other_traces(shared_traces, tmp_path):
    """Same host names, other clocks (another recording): refused, naming both UUIDs."""
    other = "0b1c2d3e-0000-4000-8000-000000000001"
    f = _formula(tmp_path, [_host("VM1", other), _host("VM3", VM3_UUID)])
    err = _run_sync(shared_traces, f'formula="{f}"')
    assert (f'parameter `formula`: "{f}": host `VM1` has clock {VM1_UUID} in the input but {other} '
            "in the formula: the formula was computed on other traces; " + REGENERATE) in err


def test_host_missing_from_formula(shared_traces, tmp_path):
    """A formula lists every host of its traces: an input host it lacks is an error naming both sides."""
    f = _formula(tmp_path, [_host("VM3", VM3_UUID, transform={"x0": 0, "y0": 0, "slope": 1.0})])
    base = shared_traces / "synctraces"
    proc = run_babeltrace2("run", "-c", "src:source.ctf.fs", "-p", f'inputs=["{base / "scp_src"}"]',
                           "-c", "sync:filter.deepspan.sync", "-p", f'formula="{f}"',
                           "-c", "out:sink.utils.dummy", "--connect", "src:sync",
                           "--connect", "sync:out", check=False)
    assert proc.returncode != 0
    err = " ".join(proc.stderr.split())
    assert (f'parameter `formula`: "{f}": host `VM1` (clock {VM1_UUID}) of the input is not in the '
            "formula (its hosts: `VM3`): the formula was computed on other traces; " + REGENERATE) in err


def test_formula_host_absent_from_input_warns(shared_traces, tmp_path):
    """Applying a formula to a subset of its traces is fine: the unused hosts are named in a warning."""
    f = _formula(tmp_path)
    base = shared_traces / "synctraces"
    proc = run_babeltrace2("run", "-c", "src:source.ctf.fs", "-p", f'inputs=["{base / "scp_src"}"]',
                           "-c", "sync:filter.deepspan.sync", "-p", f'formula="{f}"',
                           "-c", "out:sink.utils.dummy", "--connect", "src:sync",
                           "--connect", "sync:out")
    err = " ".join(proc.stderr.split())
    assert (f'formula "{f}": 1 host of the formula did not appear in the input, its transform was '
            f"unused: `VM3` (clock {VM3_UUID})") in err


def test_formula_transform_overflows_on_the_input(shared_traces, tmp_path):
    """A transform valid at its own x0 that overflows on this input's times: the run stops, naming it."""
    f = _vm1(tmp_path, tf_x0=0, tf_y0=9223372036854775000, tf_slope=1.0)
    err = _run_sync(shared_traces, f'formula="{f}"')
    assert ("filter.deepspan.sync: host `VM1`: its clock transform (x0 0, y0 9223372036854775000, "
            "slope 1) maps time ") in err
    assert (f' ns outside the int64 nanosecond range (from formula "{f}"): the formula does not fit '
            "this trace; re-run filter.deepspan.sync with `report=` on these traces to regenerate it.") in err


@pytest.mark.parametrize("text, what", [
    ('{"hosts": ' + "[" * 70 + "]" * 70 + "}", "nesting too deep (more than 64 levels) at line 1, column 74"),
    ('{"hosts": [], "x": 1e999}', "number out of range (beyond a double) at line 1, column 20"),
    ('{"hosts": [], "x": 012}', "malformed number (no leading zero allowed) at line 1, column 21"),
    (r'{"hosts": [], "x": "\u0000"}', "invalid escape in a string (\\u0000 and unpaired surrogates "
                                     "are refused) at line 1, column 27"),
    (b'{"hosts": [], "x": "\xff"}', "invalid UTF-8 in a string at line 1, column 21"),
])
def test_malformed_formula_json(shared_traces, tmp_path, text, what):
    bad = tmp_path / "bad.json"
    if isinstance(text, bytes):
        bad.write_bytes(text)
    else:
        bad.write_text(text)
    err = _run_sync(shared_traces, f'formula="{bad}"')
    assert f'parameter `formula`: "{bad}" is not valid JSON: {what}.' in err


def test_formula_not_a_regular_file(shared_traces, tmp_path):
    err = _run_sync(shared_traces, f'formula="{tmp_path}"')
    assert f'parameter `formula`: "{tmp_path}" is not a regular file.' in err


def test_huge_formula_file(shared_traces, tmp_path):
    big = tmp_path / "big.json"
    with open(big, "wb") as f:
        f.truncate(16 * 1024 * 1024 + 1)
    err = _run_sync(shared_traces, f'formula="{big}"')
    assert (f'parameter `formula`: "{big}" is larger than 16 MiB (16777217 bytes): not a file '
            "deepspan wrote.") in err


def test_identity_formula_keeps_every_clock_quietly(shared_traces, tmp_path):
    """`{"hosts": []}` is the identity formula: both hosts keep their clocks, no error, no warning."""
    f = tmp_path / "identity.json"
    f.write_text('{"hosts": [], "reorder": {"window_ns": 1000000}}')
    proc = _sync_graph(shared_traces, f'formula="{f}"', check=True)
    assert proc.stderr == ""


def test_unseekable_upstream_fails_before_pass_one(shared_traces, tmp_path):
    """filter.utils.trimmer (2.0.4) cannot seek: two passes are refused at once, before reading
    anything (no report written), with the way out (`formula`)."""
    report = tmp_path / "sync.json"
    base = shared_traces / "synctraces"
    proc = run_babeltrace2("run", "-c", "src:source.ctf.fs", "-p", f'inputs=["{base / "scp_src"}"]',
                           "-c", "trim:filter.utils.trimmer", "-p", 'begin="2013-02-18 19:01:00"',
                           "-c", "sync:filter.deepspan.sync", "-p", f'report="{report}"',
                           "-c", "out:sink.utils.dummy", "--connect", "src:trim",
                           "--connect", "trim:sync", "--connect", "sync:out", check=False)
    assert proc.returncode != 0
    err = " ".join(proc.stderr.split())
    assert ("filter.deepspan.sync: the upstream of input port `in0` cannot seek back to its beginning, "
            'which the second pass needs. Run once with `report="sync.json"` on a seekable source '
            '(e.g. source.ctf.fs), then apply it with `formula="sync.json"` (one pass, no seeking; '
            'doc/sync.md, "Sources that cannot seek").') in err
    assert not report.exists()


def _pass1_fields(report):
    """A report without what only pass 2 counts (`null` in a report-only run, doc/sync.md "Parameters")."""
    reorder = dict(report["reorder"])
    pass2 = (report["mode"], reorder.pop("high_water_mark_messages"), reorder.pop("late_messages"))
    return {**{k: v for k, v in report.items() if k != "mode"}, "reorder": reorder}, pass2


def test_report_only_writes_pass_one_report_and_no_message(shared_traces, tmp_path):
    """report-only=true: the report of the two passes but pass 2's counts (null), no message downstream."""
    two_pass, only = tmp_path / "two-pass.json", tmp_path / "only.json"
    _sync_graph(shared_traces, f'report="{two_pass}"', check=True)
    proc = _sync_graph(shared_traces, f'report="{only}"', "report-only=true", check=True)
    assert proc.stderr == ""
    full, full_pass2 = _pass1_fields(json.loads(two_pass.read_text()))
    fit, fit_pass2 = _pass1_fields(json.loads(only.read_text()))
    assert fit == full and fit["pairs"]["tcp"] > 0
    assert fit_pass2 == ("report-only", None, None)
    assert full_pass2[0] == "two-pass" and all(isinstance(n, int) for n in full_pass2[1:])
    base = shared_traces / "synctraces"
    text = run_babeltrace2("run", "-c", "src:source.ctf.fs", "-p", f'inputs=["{base / "scp_src"}"]',
                           "-c", "dst:source.ctf.fs", "-p", f'inputs=["{base / "scp_dest"}"]',
                           "-c", "sync:filter.deepspan.sync", "-p", f'report="{only}",report-only=true',
                           "-c", "out:sink.text.details", "--connect", "src:sync.in0",
                           "--connect", "dst:sync.in1", "--connect", "sync:out", check=True)
    assert text.stdout == ""


def test_report_only_reads_an_unseekable_upstream(shared_traces, tmp_path):
    """One pass: an upstream that cannot seek (filter.utils.trimmer) is fine with report-only=true."""
    report = tmp_path / "sync.json"
    base = shared_traces / "synctraces"
    run_babeltrace2("run", "-c", "src:source.ctf.fs", "-p", f'inputs=["{base / "scp_src"}"]',
                    "-c", "trim:filter.utils.trimmer", "-p", 'begin="2013-02-18 19:01:00"',
                    "-c", "sync:filter.deepspan.sync", "-p", f'report="{report}",report-only=true',
                    "-c", "out:sink.utils.dummy", "--connect", "src:trim",
                    "--connect", "trim:sync", "--connect", "sync:out", check=True)
    assert [h["name"] for h in json.loads(report.read_text())["hosts"]] == ["VM1"]


@pytest.mark.parametrize("params, text", [
    (["report-only=true"], "parameter `report-only`: it writes only the report, and no `report` is given; "
                           'give `report="FILE"` without `formula` (doc/sync.md, "Parameters").'),
    (["report-only=true", 'report="r.json"', 'formula="f.json"'],
     "parameter `report-only`: it runs pass 1, which `formula` does not have; "
     'give `report="FILE"` without `formula` (doc/sync.md, "Parameters").'),
    (["report-only=1"], "parameter `report-only`"),
])
def test_report_only_errors(shared_traces, tmp_path, params, text):
    formula = tmp_path / "f.json"
    formula.write_text('{"hosts": [], "reorder": {"window_ns": 1000000}}')
    params = [p.replace('"f.json"', f'"{formula}"').replace('"r.json"', f'"{tmp_path / "r.json"}"')
              for p in params]
    err = _run_sync(shared_traces, *params)
    assert "filter.deepspan.sync: " + text in err
