"""A modder's Lua project, for any game and any save: the tooling between files on disk and what TTS runs.

* :mod:`~bridge.luaproject.bundle` — Lua modules ⇄ one luabundle-format script (``require`` resolved, a Lua lexer,
  bundle lines mapped back to source lines).
* :mod:`~bridge.luaproject.luainclude` — Lua ``#include`` lines expanded and folded with the Atom plugin's markers.
* :mod:`~bridge.luaproject.xmlinclude` — XML UI ``<Include src>`` expanded and folded with the editor plugins' markers.
* :mod:`~bridge.luaproject.project` — a project's ``require`` search path (``ttsmod.toml``); ``ttsmod bundle`` and
  ``ttsmod unbundle``.
* :mod:`~bridge.luaproject.editor` — scripts ⇄ ``<Name>.<guid>.lua|.xml`` files, a built game's script states,
  in-place object updates.
* :mod:`~bridge.luaproject.scriptfolder` — a pulled folder as a project: pull unbundles and folds includes, push
  bundles and expands them.
* :mod:`~bridge.luaproject.savetree` — a save as a source tree and back (``ttsmod unpack`` / ``ttsmod pack``).
* :mod:`~bridge.luaproject.limits` — the one size and depth budget every command that reads or writes a tree
  keeps to (objects and JSON nesting, XML include depth and size).
* :mod:`~bridge.luaproject.errormap` — TTS error positions in a bundle → the file and line under ``mod/``.
* :mod:`~bridge.luaproject.console` — ``ttsmod console``: Lua lines gathered into chunks and run in the game.

It lives in ``bridge`` because the live side (push, pull, watch, error lines) uses it, and ``bridge`` never
imports ``tools``; the commands in ``tools/commands/`` are thin shells over it. Nothing here names a game.
"""
