"""Written = scored (issue 14, item 3): every emitted format reads back, through the project's
own config reader, to exactly the configuration the model scored."""

from __future__ import annotations

import json
import re
import shlex

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mrtune.costmodel import ClusterSpec, DataflowStats, HadoopConfig, JobProfile
from mrtune.costmodel.batch import ConfigBatch
from mrtune.errors import InputError
from mrtune.optimizer.outputs import (
    NameStyle,
    UnwritableChange,
    changed_properties,
    d_flags,
    hive_set_lines,
    mapred_site_xml,
    pig_set_lines,
    rename,
)
from mrtune.optimizer.recommend import recommend
from mrtune.readers.conf import parse_conf_text
from mrtune.search_spaces import SearchSpace

CLUSTER = ClusterSpec(num_nodes=10)


def combiner_job() -> JobProfile:
    return JobProfile(
        job_id="wc",
        input_bytes=8 * 2**30,
        input_files=8,
        has_combiner=True,
        combine_class="org.example.Sum",
        stats=DataflowStats(input_pair_width=70, map_pairs_sel=8, map_size_sel=1.6),
    )


def base_config(version: int) -> HadoopConfig:
    return HadoopConfig(
        hadoop_version=version,
        combine_class="org.example.Sum",
        map_java_opts="-Xmx1638m" if version > 1 else None,
    )


# ------------------------------------------------------------------ read-back of each format
def _d_flags_back(text: str) -> dict[str, str]:
    words = shlex.split(text)
    assert words[::2] == ["-D"] * (len(words) // 2)
    return dict(w.split("=", 1) for w in words[1::2])


def _hive_back(text: str) -> dict[str, str]:
    return dict(re.fullmatch(r"SET ([^=]+)=(.*);", ln).groups() for ln in text.splitlines())


def _pig_back(text: str) -> dict[str, str]:
    return dict(re.fullmatch(r"set (\S+) '(.*)';", ln).groups() for ln in text.splitlines())


def _xml_back(text: str) -> dict[str, str]:
    return parse_conf_text(text, "mapred-site.xml").properties


EMITTERS = {
    "xml": (lambda p: mapred_site_xml(p, header="test"), _xml_back),
    "flags": (d_flags, _d_flags_back),
    "hive": (hive_set_lines, _hive_back),
    "pig": (pig_set_lines, _pig_back),
    "json": (lambda p: json.dumps({"properties": p}), lambda t: json.loads(t)["properties"]),
}


def read_back(base: HadoopConfig, written: dict[str, str], style: NameStyle) -> HadoopConfig:
    """The job's configuration with the written properties layered on top, as the cluster
    would read it (the base under the same naming as the file)."""
    layered = {**rename(base.to_properties(), style), **written}
    return HadoopConfig.from_properties(layered, hadoop_version=base.hadoop_version)


def assert_same_columns(a: HadoopConfig, b: HadoopConfig) -> None:
    ca, cb = ConfigBatch._columns_of(a), ConfigBatch._columns_of(b)
    diff = {k: (ca[k], cb[k]) for k in ca if ca[k] != cb[k]}
    assert not diff


# ------------------------------------------------------------------ property test
@st.composite
def knob_rows(draw: st.DrawFn, space: SearchSpace) -> dict[str, float]:
    """Random values, each knob drawn from its search range (or choices)."""
    u = np.array([[draw(st.floats(0.0, 1.0)) for _ in space.knobs]])
    vals = space.repair(space.from_unit(u))
    return {k: float(v[0]) for k, v in vals.items()}


SPACES = {
    (v, mem): SearchSpace.for_job(combiner_job(), base_config(v), CLUSTER, allow_memory=mem)
    for v in (1, 3)
    for mem in (False, True)
}


@pytest.mark.parametrize("fmt", sorted(EMITTERS))
@pytest.mark.parametrize(
    ("version", "style", "memory"),
    [(3, NameStyle.hadoop2, False), (3, NameStyle.hadoop2, True), (1, NameStyle.hadoop1, False)],
)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_every_format_reads_back_to_the_scored_configuration(
    data: st.DataObject, fmt: str, version: int, style: NameStyle, memory: bool
) -> None:
    space = SPACES[(version, memory)]
    row = data.draw(knob_rows(space))
    try:
        scored = space.values_to_config(row)
    except ValueError:
        return  # a combination HadoopConfig refuses is never scored (issue 14 item 1)
    written = rename(changed_properties(space.base, scored), style)
    emit, parse = EMITTERS[fmt]
    back = read_back(space.base, parse(emit(written)), style)
    assert_same_columns(back, scored)
    # ... and the batch the search scored for this row is the same configuration.
    batch = space.to_batch({k: np.array([v]) for k, v in row.items()})
    ref = ConfigBatch.from_configs([back])
    for f in ("io_sort_mb", "num_reducers", "spill_percent", "map_codec", "use_combiner"):
        assert getattr(batch, f)[0] == getattr(ref, f)[0], f


# ------------------------------------------------------------------ the combiner
def test_the_default_space_does_not_offer_the_combiner() -> None:
    for space in SPACES.values():
        assert "mapreduce.job.combine.class" not in space.names
        assert "mapreduce.map.combine.minspills" in space.names  # a real property: offered


def test_a_recommendation_never_turns_the_combiner_off() -> None:
    rec = recommend(combiner_job(), base_config(3), CLUSTER, strategy="rrs", n_trials=200)
    assert rec.config.combine_class == "org.example.Sum"
    assert all(c.name != "mapreduce.job.combine.class" for c in rec.changes)
    assert_same_columns(read_back(base_config(3), rec.properties, NameStyle.hadoop2), rec.config)


def test_asking_for_the_combiner_explicitly_is_refused() -> None:
    with pytest.raises(InputError, match="setCombinerClass"):
        recommend(combiner_job(), base_config(3), CLUSTER, only=["mapreduce.job.combine.class"])


def test_a_removed_property_cannot_be_written() -> None:
    base = base_config(3)
    off = base.with_changes({"mapreduce.job.combine.class": None})
    with pytest.raises(UnwritableChange, match="mapreduce.job.combine.class"):
        changed_properties(base, off)


@pytest.mark.parametrize("fmt", sorted(set(EMITTERS) - {"json"}))
def test_an_emitter_refuses_a_value_it_cannot_carry(fmt: str) -> None:
    emit, _ = EMITTERS[fmt]
    with pytest.raises(UnwritableChange):
        emit({"mapreduce.job.combine.class": ""})


@pytest.mark.parametrize(("fmt", "value"), [("hive", "-Xmx1g;-Dx=1"), ("pig", "-Dk='v'")])
def test_a_statement_terminator_in_a_value_is_refused(fmt: str, value: str) -> None:
    with pytest.raises(UnwritableChange):
        EMITTERS[fmt][0]({"mapreduce.map.java.opts": value})


# ------------------------------------------------------------------ withheld changes
@pytest.mark.parametrize("include", [False, True])
def test_withholding_low_confidence_changes_writes_what_was_scored(include: bool) -> None:
    """combiner_job's cost factors are all defaulted, so its changes are low-confidence: left
    out unless asked, and what is written (every format) is exactly the configuration whose
    prediction is reported, re-scored without them (issue 14, item 4)."""
    from mrtune.optimizer.whatif import Scenario, evaluate_scenarios

    base = base_config(3)
    rec = recommend(
        combiner_job(),
        base,
        CLUSTER,
        strategy="rrs",
        n_trials=200,
        confidence=True,
        samples=16,
        include_low_confidence=include,
    )
    assert bool(rec.withheld) is not include
    assert all(c.low_confidence for c in rec.withheld)
    for emit, parse in EMITTERS.values():
        back = read_back(base, parse(emit(rec.properties)), NameStyle.hadoop2)
        assert_same_columns(back, rec.config)
    fresh = evaluate_scenarios([Scenario("written", combiner_job(), back, CLUSTER)])[0]
    assert fresh["job_ms"] == pytest.approx(rec.recommended["job_ms"], rel=1e-12)
    iv = rec.intervals["recommended_ms"]
    assert iv.point == pytest.approx(rec.recommended["job_ms"], rel=1e-9)
