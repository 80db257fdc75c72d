"""The progress bars of the commands that render (``ttsmod build``, ``ttsmod pnp``): one per label, made when
there is something to do, following a total that changes (tools.commands.common.ProgressBars)."""

from __future__ import annotations

from tools.commands.common import ProgressBars


def test_a_bar_is_made_at_the_first_report_of_work_and_follows_a_new_total():
    with ProgressBars() as bars:
        report = bars.progress("rendering")
        report(0, 0)
        assert bars.bars == {}                  # nothing to draw: no bar
        report(0, 1)
        report(1, 1)
        bar = bars.bars["rendering"]
        assert (bar.pos, bar.length) == (1, 1)
        report(1, 5)                            # a deck's first face came out at another size: four more faces
        report(5, 5)
        assert (bar.pos, bar.length) == (5, 5)


def test_each_label_has_its_own_bar():
    with ProgressBars() as bars:
        bars.progress("rendering")(2, 3)
        bars.progress("pages")(1, 4)
        assert {label: (bar.pos, bar.length) for label, bar in bars.bars.items()} == {"rendering": (2, 3),
                                                                                       "pages": (1, 4)}
