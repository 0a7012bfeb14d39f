"""Per-container JVM start and task init from a history and its container syslogs."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from mrtune.harness.container_start import container_starts
from mrtune.readers.history import AttemptRecord, JobHistory


def _stamp(epoch_ms: int) -> str:
    d = datetime.fromtimestamp(epoch_ms / 1000)
    return d.strftime("%Y-%m-%d %H:%M:%S,") + f"{epoch_ms % 1000:03d}"


def _syslog(root: Path, container: str, lines: list[tuple[int, str]]) -> None:
    d = root / "target/test/data/x/nm-0/application_1_0001" / container
    d.mkdir(parents=True)
    text = "".join(f"{_stamp(t)} INFO [main] {msg}\n" for t, msg in lines)
    (d / "syslog").write_text(text + "\tFile System Counters\n")


def test_jvm_and_init_times_per_kind(tmp_path: Path) -> None:
    t0 = 1_800_000_000_000
    attempts = [
        AttemptRecord("a_m_0", "t_m_0", "map", t0, t0 + 9000, container_id="container_2"),
        AttemptRecord("a_m_1", "t_m_1", "map", t0, t0 + 9000, container_id="container_3"),
        AttemptRecord("a_r_0", "t_r_0", "reduce", t0 + 100, t0 + 9000, container_id="container_4"),
        AttemptRecord("a_r_1", "t_r_1", "reduce", t0, t0 + 9000, container_id="container_gone"),
    ]
    h = JobHistory(source="x", source_format="jhist", job_id="job_1_0001", attempts=attempts)
    _syslog(
        tmp_path,
        "container_2",
        [(t0 + 1500, "NativeCodeLoader"), (t0 + 2500, "MapTask: Processing split: x")],
    )
    _syslog(
        tmp_path,
        "container_3",
        [(t0 + 2500, "NativeCodeLoader"), (t0 + 3000, "MapTask: Processing split: x")],
    )
    _syslog(
        tmp_path,
        "container_4",
        [(t0 + 1100, "x"), (t0 + 1400, "ReduceTask: Using ShuffleConsumerPlugin: y")],
    )
    got = container_starts(h, tmp_path)
    assert got == {
        "map_init_ms": 750.0,
        "map_jvm_ms": 2000.0,
        "reduce_init_ms": 300.0,
        "reduce_jvm_ms": 1000.0,
    }


def test_no_logs_no_figures(tmp_path: Path) -> None:
    h = JobHistory(source="x", source_format="jhist", job_id="job_1_0001")
    assert container_starts(h, tmp_path) == {}


def test_an_archived_copy_of_the_logs_gives_the_same_figures(tmp_path: Path) -> None:
    """A packed round keeps each task container's syslog head gzipped beside the history
    (``<run>/<application>/<container>/syslog.gz``, :mod:`mrtune.harness.yarn_pack`)."""
    import gzip

    from mrtune.harness.yarn_pack import syslog_head

    t0 = 1_800_000_000_000
    attempts = [AttemptRecord("a_m_0", "t_m_0", "map", t0, t0 + 9000, container_id="container_2")]
    h = JobHistory(source="x", source_format="jhist", job_id="job_1_0001", attempts=attempts)
    live = tmp_path / "live"
    _syslog(
        live,
        "container_2",
        [(t0 + 1500, "Native"), (t0 + 2500, "MapTask: Processing split: x"), (t0 + 8000, "z")],
    )
    full = next(live.glob("target/**/syslog")).read_text()
    head = syslog_head(full)
    assert head.endswith("Processing split: x\n") and "z\n" not in head
    packed = tmp_path / "packed" / "application_1_0001" / "container_2"
    packed.mkdir(parents=True)
    (packed / "syslog.gz").write_bytes(gzip.compress(head.encode()))
    assert container_starts(h, tmp_path / "packed") == container_starts(h, live)
    assert container_starts(h, tmp_path / "packed") == {
        "map_init_ms": 1000.0,
        "map_jvm_ms": 1500.0,
    }
