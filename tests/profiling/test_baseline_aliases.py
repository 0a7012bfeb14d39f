"""A configuration with a deprecated and a current name of one property, set to different
values, is read as Hadoop's ``Configuration`` reads it: the later wins (a ``--conf`` with
``mapreduce.task.io.sort.mb=100`` then ``io.sort.mb=50`` had been said to leave ``io.sort.mb``
"not usable, its default assumed" while the earlier 100 was kept)."""

from __future__ import annotations

from mrtune.profiling.baseline import profiled_config


def test_the_later_of_two_names_wins_and_is_said() -> None:
    warnings: list[str] = []
    props = {"mapreduce.task.io.sort.mb": "100", "io.sort.mb": "50", "mapreduce.job.reduces": "3"}
    cfg = profiled_config(props, 2, warnings)
    assert (cfg.io_sort_mb, cfg.num_reducers) == (50, 3)
    assert len(warnings) == 1 and "io.sort.mb='50' overrides" in warnings[0]
    assert "not usable" not in warnings[0]
    cfg = profiled_config({"io.sort.mb": "50", "mapreduce.task.io.sort.mb": "100"}, 2, [])
    assert cfg.io_sort_mb == 100


def test_agreeing_names_say_nothing() -> None:
    warnings: list[str] = []
    cfg = profiled_config({"io.sort.mb": "50", "mapreduce.task.io.sort.mb": "50"}, 2, warnings)
    assert cfg.io_sort_mb == 50 and warnings == []
