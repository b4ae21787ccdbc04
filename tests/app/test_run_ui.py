"""studio.run_ui (issue 16): the run lifecycle box, the sweep figure on an epsilon axis and the
carry message; studio.plots' palette."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from studio.plots import METHOD_STYLE, OKABE_ITO, log_axis_range, method_style
from studio.run_ui import carry_message, fmt_seconds, sweep_figure


def test_carry_message_says_what_changed():
    before = {"rn_tau": 0.03, "rn_methods": ["tab-pe", "hard", "bf-soft"], "rn_rho": 6e-4,
              "rn_budget_mode": "rho (zCDP)"}
    after = {"rn_tau": 0.1, "rn_methods": ["hard", "bf-soft"], "rn_rho": 6e-4, "rn_budget_mode": "rho (zCDP)"}
    assert carry_message(before, after) == "tau 0.03 → 0.1; Tab-PE removed from the comparison"
    assert carry_message(before, dict(before)) == "nothing changed"
    hard_only = {**before, "rn_methods": ["hard"], "rn_rho": 1e-3}
    assert carry_message(before, hard_only) == ("Tab-PE and BF-Soft removed from the comparison; "
                                                "budget ρ = 0.001 (was 0.0006)")


def test_fmt_seconds():
    assert fmt_seconds(8.2) == "8 s" and fmt_seconds(65) == "1 min 05 s" and fmt_seconds(-1) == "0 s"


def test_palette_is_okabe_ito_with_distinct_markers_and_dashes():
    hard, soft = method_style("hard"), method_style("BF-Soft")
    assert hard["color"] == OKABE_ITO["blue"] and soft["color"] == OKABE_ITO["vermillion"]
    assert len({s["color"] for s in METHOD_STYLE.values()}) == len(METHOD_STYLE)
    assert len({s["symbol"] for s in METHOD_STYLE.values()}) == len(METHOD_STYLE)
    assert len({s["dash"] for s in METHOD_STYLE.values()}) == len(METHOD_STYLE)
    lo, hi = log_axis_range([1e-4, 1e-2, None, 0.0])
    assert lo == math.log10(1e-4) - 0.15 and hi == math.log10(1e-2) + 0.15


class _Sweep:
    metric, delta = "pwerr", 1e-5
    crossing_epsilon_exact = 0.07

    def table(self) -> pd.DataFrame:
        return pd.DataFrame({"rho": [1e-4, 6e-4, 3e-3], "epsilon (exact)": [0.04, 0.107, 0.24],
                             "Hard mean": [0.3, 0.2, 0.1], "Hard ci_low": [0.28, 0.18, 0.09],
                             "Hard ci_high": [0.32, 0.22, 0.11], "BF-Soft mean": [0.25, 0.21, 0.12],
                             "BF-Soft ci_low": [None, None, None], "BF-Soft ci_high": [None, None, None],
                             "R_s (%)": [16.7, -5.0, -20.0]})


def test_sweep_figure_epsilon_axis_on_the_data_and_crossing_inside():
    fig = sweep_figure(_Sweep())
    assert fig.layout.xaxis.type == "log"
    assert fig.layout.xaxis.title.text == "privacy budget ε at δ = 10⁻⁵ (log scale)"
    assert fig.layout.yaxis.title.text == "mean PWERR (lower is better)"
    lo, hi = fig.layout.xaxis.range
    assert 10 ** lo < 0.04 and 10 ** hi < 1.0  # the axis stays on the data: no stretch to 1
    assert [t.name for t in fig.data] == ["Hard", "BF-Soft"]
    assert fig.data[0].marker.symbol != fig.data[1].marker.symbol
    assert fig.data[0].line.color != fig.data[1].line.color
    ann = fig.layout.annotations[0]
    assert ann.text == "crossing ε ≈ 0.07" and ann.yref == "paper" and ann.y == 1.0
    # plotly places annotations on a log axis in log10 units (the line itself takes the data value): a label
    # at x = 0.07 read as 10^0.07 ~ 1.2 is what stretched the old sweep axis to 1
    assert ann.x == pytest.approx(math.log10(0.07))
    assert fig.layout.shapes[0].x0 == 0.07
    # readable log ticks (issue 24 item 10): under two decades, 1-2-5 values with plain labels, no minor digits
    assert fig.layout.xaxis.tickmode == "array"
    assert list(fig.layout.xaxis.tickvals) == [0.05, 0.1, 0.2]
    assert list(fig.layout.xaxis.ticktext) == ["0.05", "0.1", "0.2"]


def test_log_ticks_are_decades_or_one_two_five():
    import plotly.graph_objects as go

    from studio.plots import log_axis, log_tick_text, log_ticks

    assert log_ticks(-5.15, -0.85) == [1e-5, 1e-4, 1e-3, 1e-2, 1e-1]
    assert log_ticks(math.log10(0.04), math.log10(0.24)) == [0.05, 0.1, 0.2]
    assert log_ticks(0.1, 0.25) == [1.3, 1.8]  # a sliver of one decade: its two ends
    fig = log_axis(go.Figure(go.Scatter(x=[1e-5, 1e-3, 0.1], y=[1, 2, 3])), [1e-5, 1e-3, 0.1])
    ax = fig.layout.xaxis
    assert ax.type == "log" and list(ax.tickvals) == [1e-5, 1e-4, 1e-3, 1e-2, 1e-1]
    assert list(ax.ticktext) == ["10⁻⁵", "10⁻⁴", "10⁻³", "10⁻²", "10⁻¹"]  # one form: never 0.0001 beside 10⁻⁵
    assert log_tick_text([1.0, 10.0, 100.0]) == ["1", "10", "100"]


def _status_app():
    import streamlit as st

    from studio.run_ui import RunStatus

    mode = st.session_state.get("mode", "done")
    with RunStatus("Run") as rs:
        rs.progress(0.5, "round 1 of 2")
        if mode == "done":
            rs.done("Run finished.")
        elif mode == "stopped":
            rs.stopped("Run stopped. Nothing partial was kept.")
        else:
            raise ValueError("boom")


def test_run_status_states_leave_no_progress_bar():
    for mode, label, kind in (("done", "Run: done after", "success"), ("stopped", "Run: stopped after", "warning"),
                              ("failed", "Run: failed after", "error")):
        at = AppTest.from_function(_status_app, default_timeout=60)
        at.session_state["mode"] = mode
        at.run()
        box = at.status[0]
        assert box.label.startswith(label), box.label
        icons = {"done": ":material/check:", "stopped": ":material/check:", "failed": ":material/error:"}
        assert box.icon == icons[mode]
        assert not at.get("progress")  # removed when the box closes
        if mode == "failed":
            assert at.error and at.error[0].value == "boom" and at.exception
        else:
            assert getattr(at, kind)


def test_markdown_table_is_the_text_alternative():
    from studio.plots import markdown_table

    df = pd.DataFrame({"tau": [0.03, 0.1], "mean": [0.123456, None], "method": ["a|b", "hard"]})
    assert markdown_table(df) == ("| tau | mean | method |\n| --- | --- | --- |\n| 0.03 | 0.1235 | a\\|b |\n"
                                  "| 0.1 | — | hard |")
    assert markdown_table(pd.DataFrame({"x": range(5)}), max_rows=2).endswith("… and 3 more rows.")


def test_round_error_figure_draws_a_method_without_rounds_as_a_level_line():
    """MST / AIM have no rounds (one release): a dotted level line over every round named 'final (no
    rounds)', never a lone dot at the release (issue 24 item 10)."""
    from studio.run_ui import round_error_figure

    g = pd.DataFrame({"method": ["Hard"] * 4 + ["MST"], "round": [1, 2, 3, 4, 4],
                      "step": ["round 1", "round 2", "round 3", "release", "release"],
                      "error": [0.5, 0.4, 0.3, 0.25, 0.2]})
    fig = round_error_figure(g, 3, "pwerr", ["Tab-PE", "Hard", "MST"])
    assert [t.name for t in fig.data] == ["Hard", "MST: final (no rounds)"]
    hard, mst = fig.data
    assert list(hard.x) == [1, 2, 3, 4] and hard.mode == "lines+markers"
    assert list(mst.x) == [1, 4] and list(mst.y) == [0.2, 0.2] and mst.mode == "lines" and mst.line.dash == "dot"
    assert all(t.showlegend for t in fig.data)
    assert fig.layout.xaxis.title.text == "round (T + 1 = release)" and fig.layout.yaxis.title.text == "mean PWERR"


def test_pilot_figure_gives_every_method_a_legend_entry():
    """The Tune pilot chart: BF-Soft and Hard each in the legend (BF-Soft was the one trace, and plotly hides
    the legend of a single trace; Hard is a line shape, named by a legend-only trace)."""
    from studio.run_ui import pilot_figure

    tab = pd.DataFrame({"method": ["hard", "bf-soft", "bf-soft", "bf-soft"], "tau": [None, 0.01, 0.03, 0.1],
                        "mean": [0.3, 0.28, 0.25, 0.27], "ci_low": [0.27, 0.25, 0.22, 0.24],
                        "ci_high": [0.33, 0.31, 0.28, 0.30]})
    fig = pilot_figure(tab, "bf-soft", "hard", "pwerr")
    assert [t.name for t in fig.data] == ["Hard (mean, 95% CI band)", "BF-Soft"]
    assert all(t.showlegend for t in fig.data) and fig.layout.showlegend is True
    assert fig.layout.xaxis.type == "log" and list(fig.layout.xaxis.tickvals) == [0.01, 0.1]
