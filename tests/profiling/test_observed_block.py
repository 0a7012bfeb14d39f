"""The block a history's maps show, where no configuration names the split.

A 2009 Rumen trace (``folder-input-trace``) names no configuration, and its cluster did not run
Hadoop 1's 64 MiB default block: job 10013's 30 maps each read 134,219,776 bytes (a 128 MiB
block and the line its reader finished past it). Cut at 64 MiB, the model gave 60 maps, and a
``mapred.min.split.size`` of 133,884,411 bytes, which ``computeSplitSize`` keeps below the
block and so changes nothing, was sold as ×1.55 with a confident interval. Job 10044's one map
read 85.5 MB of compressed input: a larger block or an unsplittable file, so split changes are
not priced at all.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mrtune.costmodel import ClusterSpec, ConfigBatch, predict_job
from mrtune.optimizer.whatif import what_if
from mrtune.profiling.baseline import profile_config
from mrtune.profiling.observed_conf import observed_block

MIB = 1 << 20


@pytest.fixture(scope="module")
def trace(shared_data: Path) -> Path:
    return shared_data / "rumen" / "folder-input-trace.json.gz"


def _profile(trace: Path, job: str):
    from mrtune.calibration.profiles import load_profile_source

    return load_profile_source(trace, job=job)


def test_equal_maps_above_the_default_set_the_block(trace: Path) -> None:
    p = _profile(trace, "job_200910281128_10013")
    cfg = profile_config(p)
    assert cfg.dfs_blocksize == 128 * MIB
    assert p.source_properties["dfs.block.size"] == str(128 * MIB)
    assert any(w.startswith("block size 128 MiB from the history") for w in p.warnings)
    pred = predict_job(p, ConfigBatch.from_configs([cfg]), ClusterSpec())
    assert float(pred.num_full_maps[0] + pred.num_tail_maps[0]) == 30  # as the job ran
    # the min split size below the block changes nothing, as in Hadoop
    out = what_if(p, cfg, ClusterSpec(), {"mapred.min.split.size": "133884411"})
    assert out["what_if"]["job_ms"] == pytest.approx(out["current"]["job_ms"], rel=1e-12)


def test_one_large_map_without_a_block_is_kept_as_a_unit(trace: Path) -> None:
    p = _profile(trace, "job_200910281128_10044")
    assert not p.input_splittable
    assert "no configuration names the block or split size" in (p.split_units or "")


@pytest.mark.parametrize(
    ("props", "per_map", "why"),
    [
        ({"dfs.block.size": str(64 * MIB)}, [134e6, 134e6], "the configuration names it"),
        ({}, [134e6], "one map could be one unsplittable file"),
        ({}, [30e6, 30e6, 30e6], "equal maps below the default are equal small files"),
        ({}, [134e6, 90e6, 70e6], "one map at the largest size"),
    ],
)
def test_no_block_is_read_off_maps_that_do_not_show_one(
    props: dict, per_map: list[float], why: str
) -> None:
    assert observed_block(dict(props), per_map, 64 * MIB, 1) is None, why


def test_the_block_is_the_split_in_whole_mib() -> None:
    props: dict[str, str] = {}
    line = observed_block(props, [134_219_776.0, 134_218_752.0, 5e6], 64 * MIB, 3)
    assert props == {"dfs.blocksize": str(128 * MIB)}
    assert line is not None and "2 of 3 maps" in line


def test_files_are_rebuilt_from_the_maps_when_equal_files_do_not_give_them() -> None:
    """A YARN Grep over a 12 MB and a 3 MB file in 4 MiB blocks: maps of 4, 4, 4 and 3 MiB
    (plus the bytes a reader reads past its split), which two equal files do not give."""
    from mrtune.costmodel.map_groups import split_layout
    from mrtune.costmodel.profile import JobProfile
    from mrtune.profiling.input_classes import file_classes, files_from_splits

    split = 4 * MIB
    per_map = [4194349.0, 4198400.0, 4198400.0, 3145752.0]
    stored = sum(per_map)
    files = files_from_splits(per_map, stored, split, 2)
    assert files is not None and len(files) == 2 and sum(files) == pytest.approx(stored)
    # cut at the run's split they give its maps: three full splits and one of 3 MiB
    prof = JobProfile(input_bytes=stored, input_files=2, map_classes=file_classes(files))
    maps = []
    for cls in prof.map_classes:
        k, full, tail, n = split_layout(cls.profile_of(prof), float(split))
        maps += [float(full)] * int(k * n) + ([float(tail)] * int(n) if tail > 0 else [])
    assert sorted(round(m / MIB, 1) for m in maps) == [3.0, 4.0, 4.0, 4.0]
    # equal files that give the maps, more files than maps, or a map beyond 1.1 splits: none
    assert files_from_splits([split, split, split, split], 4.0 * split, split, 2) is None
    assert files_from_splits(per_map, stored, split, 4) is None
    assert files_from_splits([5 * MIB, 3 * MIB, 2 * MIB], 10.0 * MIB, split, 2) is None
