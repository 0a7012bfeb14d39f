"""A lone map task's REST response is no map-only job (the shared Hadoop documentation
examples: ``06_task.json``, ``08_taskAttempts.json`` and ``09_taskAttempt.json`` had each
been profiled as a job of 1 map and 0 reduces); with a reduce task, or the job's own
response, the responses are read."""

from __future__ import annotations

from pathlib import Path

import pytest

from mrtune.errors import InputError
from mrtune.readers import load_history


@pytest.mark.parametrize("name", ["06_task.json", "08_taskAttempts.json", "09_taskAttempt.json"])
def test_map_tasks_alone_are_refused(shared_data: Path, name: str) -> None:
    with pytest.raises(InputError, match="whether the job had reduces is unknown"):
        load_history(shared_data / "rest" / name)


def test_tasks_with_a_reduce_are_read(shared_data: Path) -> None:
    h = load_history(shared_data / "rest" / "05_tasks.json")
    assert sorted(a.kind for a in h.attempts) == ["map", "reduce"]
