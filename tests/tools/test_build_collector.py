"""tools.build.collector_paused: the cyclic garbage collector is off while a build runs, back on after (as it
was), and on in a process forked meanwhile (a render worker)."""

from __future__ import annotations

import gc
import os

import pytest

from tools.build import collector_paused


@pytest.fixture
def collector_on():
    was = gc.isenabled()
    gc.enable()
    yield
    (gc.enable if was else gc.disable)()


def test_paused_inside_and_back_after_even_nested_and_on_errors(collector_on):
    with collector_paused():
        assert not gc.isenabled()
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError):
        with collector_paused():
            raise RuntimeError("a failed build")
    assert gc.isenabled()


def test_a_collector_turned_off_before_stays_off(collector_on):
    gc.disable()
    with collector_paused():
        pass
    assert not gc.isenabled()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this system")
def test_a_process_forked_during_a_build_has_the_collector(collector_on):
    read, write = os.pipe()
    with collector_paused():
        pid = os.fork()
        if pid == 0:   # the child: report and leave at once
            os.write(write, b"1" if gc.isenabled() else b"0")
            os._exit(0)
        os.close(write)
        answer = os.read(read, 1)
        os.close(read)
        os.waitpid(pid, 0)
    assert answer == b"1"
