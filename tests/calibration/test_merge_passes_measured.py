"""validate measures a map's merge passes over all its partitions, as the model counts them.

The fixture holds two real local runs of the examples' WordMean (hadoop-mapreduce-examples
3.4.2) over 15 MB of text: the default, and io.sort.mb 5 with 3 reduces. WordMean emits two
keys ("count", "length"), so with 3 reduces partitions 0 and 1 of every map are empty: their
merges log one pass while partition 2 logs 5 (map 0, 44 spills) and 2 (map 1). validate had
read the first partition only and scored the model's exact 5 and 2 as 1 and 1.
"""

from __future__ import annotations

from mrtune.calibration._fidelity_figures import measured_figures, predicted_figures
from mrtune.calibration._fidelity_runs import same
from mrtune.calibration.run_profile import profile_from_run
from mrtune.calibration.run_record import run_config
from mrtune.costmodel import ClusterSpec, ConfigBatch
from mrtune.costmodel.job import predict_job
from tests.calibration.run_fixtures import by_label


def test_merge_passes_are_the_most_over_a_maps_partitions() -> None:
    runs = by_label("examples-wordmean-empty-partitions.jsonl.gz")
    held = runs["wordmean-s5r3"]
    assert [len(a.merges) for a in held.map_attempts] == [3, 3]
    measured = measured_figures(held)["map_merge_passes"]
    assert sorted(measured) == [2, 5]
    prof = profile_from_run(runs["wordmean-default"])
    pred = predict_job(prof, ConfigBatch.from_configs([run_config(held)]), ClusterSpec.local())
    assert same(predicted_figures(pred)["map_merge_passes"], measured)
    assert measured_figures(runs["wordmean-default"])["map_merge_passes"] == [1, 0]
