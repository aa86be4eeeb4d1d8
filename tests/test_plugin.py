"""The deepspan plugin as users see it: one plugin, every component class, documented parameters."""
import re

import pytest

from conftest import run_babeltrace2

CLASSES = {
    "source": ["scenario"],
    "filter": ["sync", "nodejs-ctx", "span-attrib"],
    "sink": ["diff", "metrics"],
}
ALL = [f"{kind}.deepspan.{name}" for kind, names in CLASSES.items() for name in names]


def test_list_plugins_shows_every_class(plugin_dir):
    out = run_babeltrace2("list-plugins").stdout
    section = out[out.index("deepspan:"):]
    section = section.split("\n\n")[0]
    for kind, names in CLASSES.items():
        for name in names:
            assert f"{kind}.deepspan.{name}" in section, f"{kind}.deepspan.{name} missing from:\n{section}"


def test_python_finds_the_plugin(bt2_plugin):
    assert set(bt2_plugin.source_component_classes) == set(CLASSES["source"])
    assert set(bt2_plugin.filter_component_classes) == set(CLASSES["filter"])
    assert set(bt2_plugin.sink_component_classes) == set(CLASSES["sink"])


@pytest.mark.parametrize("cls", ALL)
def test_help_documents_parameters(plugin_dir, cls):
    out = run_babeltrace2("help", cls).stdout
    header = f"'{cls}'"
    assert header in out, out
    help_text = out.split(header, 1)[1]
    assert "Description:" in help_text, out
    # every documented class says what its parameters are, with a default or a type
    assert re.search(r"default|type", help_text, re.I), f"{cls} help has no parameter documentation:\n{out}"


@pytest.mark.parametrize("cls", [c for c in ALL if not c.startswith("source")])
def test_unknown_parameter_is_refused_by_name(plugin_dir, cls, shared_traces):
    kind = cls.split(".")[0]
    args = [str(shared_traces / "multi-domains")]
    args += ["-c", cls, "-p", "no-such-parameter=1"]
    if kind == "filter":
        args += ["-c", "sink.utils.dummy"]
    proc = run_babeltrace2(*args, check=False)
    assert proc.returncode != 0
    assert "no-such-parameter" in proc.stderr and cls in proc.stderr, proc.stderr[-3000:]
