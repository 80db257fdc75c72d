"""The Four Humours mod as the build bundles it: its hello carries the package version and the game id from
``generated.ttsmod`` (one source for the version), and selftest's MOD_VERSION and MOD_GAME come from it too."""

from __future__ import annotations

from bridge import __version__
from tools.build import bundle_scripts
from tools.headless import Table


def test_hello_and_mod_version_come_from_the_package_version():
    scripts = bundle_scripts("four-humours")["-1"]
    table = Table.load({"LuaScript": scripts["LuaScript"], "XmlUI": scripts["XmlUI"], "ObjectStates": []},
                       bridge_port=None, listen_port=0)
    table.boot()
    with table:
        hello = table.sent_custom[0]
        assert (hello["type"], hello["game"], hello["body"]) == ("hello", "four-humours", {"mod": __version__})
        assert table.global_env["MOD_VERSION"] == __version__ and table.global_env["MOD_GAME"] == "four-humours"
