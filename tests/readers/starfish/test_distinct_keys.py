"""The combiner honours a Starfish profile's distinct-key statistics (issue 16 item 4)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mrtune.costmodel import ConfigBatch, predict_job
from mrtune.profiling.starfish import load_starfish

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def _profile(tmp_path: Path, unique: bool) -> Path:
    """Starfish's WordCount sample with a spill of 500 k records combined to 100 k, a map's
    2 M records holding 180 k distinct keys (MAP_MAX_UNIQUE_GROUPS) and the job's 8 M holding
    2 × 150 k (REDUCE_INPUT_GROUPS per reducer)."""
    text = (FIXTURES / "wordcount_profile.xml").read_text()
    text = text.replace(
        '<counter key="MAP_RECS_PER_BUFF_SPILL" value="2000000.0" />',
        '<counter key="MAP_RECS_PER_BUFF_SPILL" value="500000.0" />'
        + ('<counter key="MAP_MAX_UNIQUE_GROUPS" value="180000.0" />' if unique else ""),
    )
    text = text.replace(
        '<statistic key="COMBINE_PAIRS_SEL" value="0.1" />',
        '<statistic key="COMBINE_PAIRS_SEL" value="0.2" />',
    ).replace(
        '<statistic key="COMBINE_SIZE_SEL" value="0.1" />',
        '<statistic key="COMBINE_SIZE_SEL" value="0.2" />',
    )
    text = text.replace(
        '<counter key="REDUCE_INPUT_GROUPS" value="100000.0" />',
        '<counter key="REDUCE_INPUT_GROUPS" value="150000.0" />',
    )
    path = tmp_path / "wordcount_profile.xml"
    path.write_text(text)
    return path


@pytest.mark.parametrize("unique", [True, False])
def test_key_law_passes_through_the_profiles_distinct_keys(tmp_path: Path, unique: bool) -> None:
    profile, config, cluster = load_starfish(_profile(tmp_path, unique))
    st = profile.stats
    assert profile.provenance["stats.combiner_heaps_beta"].startswith("measured")
    # through (500 k, 100 k), (2 M, 180 k) and (8 M, 300 k): log-log slope about 0.4
    assert st.combiner_heaps_beta == pytest.approx(0.4 if unique else 0.396, abs=0.01)
    pred = predict_job(profile, ConfigBatch.from_configs([config]), cluster)
    c = pred.counters
    # the job's own distinct keys (2 × 150 k) within the law's fit, never 3.6-48× below
    assert c["REDUCE_INPUT_GROUPS"][0] == pytest.approx(300_000, rel=0.05)
    assert c["REDUCE_INPUT_RECORDS"][0] >= c["REDUCE_INPUT_GROUPS"][0]
