"""The seed's linear-extrapolation baseline."""

from __future__ import annotations

import pytest

from mrtune.costmodel.workflow import fit_linear, linear_extrapolation, wave_time


def test_line_through_two_points() -> None:
    # 100 s at scale 5, 160 s at scale 10 -> 12 s per unit, 40 s intercept -> 280 s at 20.
    assert linear_extrapolation([5, 10], [100.0, 160.0], 20) == pytest.approx(280.0)
    fit = fit_linear([5, 10], [100.0, 160.0])
    assert (fit.slope, fit.intercept) == pytest.approx((12.0, 40.0))


def test_extrapolation_misses_a_new_wave() -> None:
    # 64 slots, 30 s map tasks: 32 and 64 maps are one wave each (30 s), 128 maps two (60 s);
    # the line through the first two predicts 30 s, the wave model 60 s.
    times = [float(wave_time(n, 30.0, 64)) for n in (32, 64, 128)]
    assert times == [30.0, 30.0, 60.0]
    assert linear_extrapolation([32, 64], times[:2], 128) == pytest.approx(30.0)


@pytest.mark.parametrize(("sizes", "times"), [([5, 5], [1.0, 2.0]), ([5], [1.0]), ([1, 2], [1.0])])
def test_bad_fits(sizes: list[float], times: list[float]) -> None:
    with pytest.raises(ValueError):
        fit_linear(sizes, times)
