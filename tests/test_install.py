# SPDX-License-Identifier: MIT
"""`make install` (the README's way to put deepspan where babeltrace2 finds it) into a staging directory:
it must succeed, and what it installs must work from there."""
import re
import subprocess

import pytest

from conftest import BUILD_DIR, SRC_DIR


@pytest.fixture(scope="module")
def staged(tmp_path_factory):
    if not (BUILD_DIR / "Makefile").is_file():
        pytest.skip(f"{BUILD_DIR} is not a configured build tree")
    root = tmp_path_factory.mktemp("install")
    proc = subprocess.run(["make", "-C", str(BUILD_DIR), "install", f"DESTDIR={root}"], capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return root


def test_plugin_loads_from_its_install_directory(staged):
    (plugin,) = staged.rglob("babeltrace-plugin-deepspan.so")
    assert not list(staged.rglob("babeltrace-plugin-deepspan.la"))
    out = subprocess.run(["babeltrace2", f"--plugin-path={plugin.parent}", "list-plugins"], capture_output=True,
                         text=True, timeout=60, check=True).stdout
    for cls in ("source.deepspan.scenario", "filter.deepspan.sync", "filter.deepspan.span-attrib",
                "filter.deepspan.nodejs-ctx", "sink.deepspan.diff", "sink.deepspan.metrics"):
        assert cls in out, cls


def test_commands_installed(staged):
    for name in ("deepspan-report", "deepspan-record", "deepspan-vm"):
        (script,) = staged.rglob(f"bin/{name}")
        proc = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0 and name in proc.stdout + proc.stderr, name


def test_docs_installed_with_working_links(staged):
    (readme,) = staged.rglob("share/doc/deepspan/README.md")
    links = set(re.findall(r"\]\((doc/[a-z-]+\.md)\)", readme.read_text()))
    assert links, "README.md links to the doc/ pages"
    for link in links:
        assert (readme.parent / link).is_file(), link
    pages = sorted(p.name for p in (SRC_DIR / "doc").glob("*.md"))
    assert sorted(p.name for p in (readme.parent / "doc").glob("*.md")) == pages
