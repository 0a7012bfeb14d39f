"""Maps that emit nothing, in a job whose configuration holds ``split.maxsize`` 0.

The fixture is a real local run of the examples' DistributedPentomino (``-depth 2 -width 6
-height 10``): NLineInputFormat gives each of 413 prefixes its own map, none of which finds a
solution at this size, and its staged job.xml holds
``mapreduce.input.fileinputformat.split.maxsize`` 0. Two defects:

- the configuration was refused (a multi-line pydantic error): 0 is legal in Hadoop, where
  ``computeSplitSize`` = max(minSize ≥ 1, min(maxSize, block)) makes it a 1-byte split, as 1;
- a map without records was modelled as writing nothing, but ``MapTask.mergeParts`` "creates
  dummy files", one empty IFile segment a partition: 6 bytes (EOF marker and checksum), so
  MAP_OUTPUT_MATERIALIZED_BYTES 2,478 was predicted 0 while the shuffle's 2,478 was right.
"""

from __future__ import annotations

import numpy as np

from mrtune.calibration._fidelity_figures import measured_figures, predicted_figures
from mrtune.calibration.run_profile import profile_from_run
from mrtune.calibration.run_record import run_config
from mrtune.costmodel import ClusterSpec, ConfigBatch, HadoopConfig, JobProfile, predict_job
from mrtune.costmodel.map_task import map_task
from mrtune.costmodel.profile import DataflowStats
from tests.calibration.run_fixtures import records


def test_a_split_maxsize_of_zero_is_a_one_byte_split() -> None:
    for raw in ("0", "-5", "1"):
        cfg = HadoopConfig.from_properties({"mapreduce.input.fileinputformat.split.maxsize": raw})
        assert cfg.split_maxsize == 1 and cfg.split_size == 1


def test_maps_that_emit_nothing_write_one_empty_segment_a_partition() -> None:
    (rec,) = records("examples-pentomino-empty-maps.jsonl.gz")
    profile = profile_from_run(rec)
    pred = predict_job(
        profile, ConfigBatch.from_configs([run_config(rec)]), ClusterSpec(local_mode=True)
    )
    got, real = predicted_figures(pred), measured_figures(rec)
    assert real["MAP_OUTPUT_RECORDS"] == 0 and len(rec.map_attempts) == 413
    assert float(pred.num_maps[0]) == 413  # NLineInputFormat's maps, kept as units
    for name in ("MAP_OUTPUT_MATERIALIZED_BYTES", "REDUCE_SHUFFLE_BYTES"):
        assert round(got[name]) == real[name] == 413 * 6, name


def test_a_map_only_map_writes_no_segment() -> None:
    p = JobProfile(input_bytes=1e6, stats=DataflowStats(map_pairs_sel=0.0, map_size_sel=0.0))
    for reduces, want in ((0, 0.0), (3, 18.0)):
        cfg = HadoopConfig(**{"mapreduce.job.reduces": reduces})
        m = map_task(p, ConfigBatch.from_configs([cfg]), np.array([1e6]))
        assert float(m.materialized_bytes[0]) == want
