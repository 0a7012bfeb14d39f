"""``spill_write`` is checked for plausibility like every other rate.

The fixture holds two real local runs of the examples' WordCount over a 7.9 MB bzip2 text
file cut at split.maxsize 2,000,000 (4 maps of one spill each): the default, and the same with
bzip2 map-output compression. One spill a map leaves the spill's write time collinear with its
combine and sort: the fit put 3,716 ns/B (×310) on spill_write, which had no prior range, so it
passed as measured and ``optimize`` wrote bzip2 as a sure 649 ms a map. The real bzip2 run's
map sort/spill phase grew from 4.8 s to 7.2 s.
"""

from __future__ import annotations

from mrtune.calibration.run_profile import profile_from_run
from mrtune.costmodel.factor_priors import PRIORS
from mrtune.optimizer.priors import is_measured
from mrtune.readers.run_records import RunRecord
from tests.calibration.run_fixtures import by_label


def test_a_spill_write_far_beyond_its_prior_is_implausible() -> None:
    assert PRIORS["spill_write"] == PRIORS["local_write"]
    recs = by_label("examples-wordcount-bzip2-input.jsonl.gz")
    prof = profile_from_run(recs["wordcount-default"])
    assert prof.provenance["costs.spill_write"].startswith("implausible")
    assert not is_measured(prof, "spill_write")

    # what Hadoop did with bzip2 map output: the sort/spill phase grew, it did not shrink
    def sort_ms(rec: RunRecord) -> float:
        return sum((a.done_ms or 0) - (a.flush_ms or 0) for a in rec.map_attempts)

    assert sort_ms(recs["wcbz-mapbz2"]) > sort_ms(recs["wordcount-default"])
