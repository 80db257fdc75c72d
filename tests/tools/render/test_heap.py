"""The render processes' allocator advice (tools/render/heap.py): taken on glibc, harmless to repeat, and given
in every render worker before it draws."""

import concurrent.futures
import ctypes.util
import platform

import pytest

from tools.render import heap, pipeline

glibc = pytest.mark.skipif(platform.system() != "Linux" or platform.libc_ver()[0] != "glibc"
                           or ctypes.util.find_library("c") is None, reason="the advice is glibc's mallopt")


@glibc
def test_glibc_takes_the_advice_and_a_second_call_is_a_no_op():
    assert heap.keep_freed_image_memory() is True
    assert heap.keep_freed_image_memory() is True


def _advised_in_worker() -> bool:
    return heap._advised


@glibc
def test_a_render_worker_is_advised_by_its_initializer(monkeypatch):
    monkeypatch.setattr(heap, "_advised", False)   # what a forked worker inherits from here
    with concurrent.futures.ProcessPoolExecutor(max_workers=1, initializer=pipeline._init_worker,
                                                initargs=(None,)) as pool:
        assert pool.submit(_advised_in_worker).result(timeout=60) is True


@glibc
def test_the_build_command_is_advised_before_it_builds(monkeypatch):
    from click.testing import CliRunner

    import tools.build
    from bridge.errors import InputError
    from tools.cli import cli

    seen = []

    def build(*args, **kwargs):   # stands for the build: what the advice was when it began
        seen.append(heap._advised)
        raise InputError("stop here")

    monkeypatch.setattr(heap, "_advised", False)
    monkeypatch.setattr(tools.build, "build", build)
    result = CliRunner().invoke(cli, ["build", "any-game", "--no-cache"])   # (the build above stops it)
    assert seen == [True], result.output
    assert result.exit_code == 2 and "stop here" in result.output
