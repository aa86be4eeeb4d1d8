# SPDX-License-Identifier: MIT
"""The deepspan plugin as users see it: one plugin, every component class, documented parameters."""
import re
import subprocess

import pytest

from conftest import run_babeltrace2

CLASSES = {
    "source": ["scenario", "clock-fit", "pipe"],
    "filter": ["sync", "sync-extract", "nodejs-ctx", "span-attrib"],
    "sink": ["diff", "metrics", "pipe"],
}
ALL = [f"{kind}.deepspan.{name}" for kind, names in CLASSES.items() for name in names]


def test_list_plugins_shows_every_class(plugin_dir):
    out = run_babeltrace2("list-plugins").stdout
    section = out[out.index("deepspan:"):]
    section = section.split("\n\n")[0]
    for kind, names in CLASSES.items():
        for name in names:
            assert f"{kind}.deepspan.{name}" in section, f"{kind}.deepspan.{name} missing from:\n{section}"


# What babeltrace2 2.0.4 looks up in a plugin (BT_PLUGIN_MODULE() of babeltrace2/plugin/plugin-dev.h):
# the begin/end accessors of its four descriptor sections. plugins/plugin.map hides everything else.
LOADER_SYMBOLS = {
    f"__bt_get_{end}_section_{section}"
    for end in ("begin", "end")
    for section in ("plugin_descriptors", "plugin_descriptor_attributes",
                    "component_class_descriptors", "component_class_descriptor_attributes")
}


def test_exports_only_what_babeltrace2_loads(plugin_dir):
    so = plugin_dir / "babeltrace-plugin-deepspan.so"
    out = subprocess.run(["nm", "-D", "--defined-only", str(so)], capture_output=True, text=True,
                         check=True).stdout
    exported = {line.split()[-1] for line in out.splitlines() if line.strip()}
    assert exported == LOADER_SYMBOLS, (
        f"unexpected exports: {sorted(exported - LOADER_SYMBOLS)}; "
        f"missing: {sorted(LOADER_SYMBOLS - exported)}")


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
