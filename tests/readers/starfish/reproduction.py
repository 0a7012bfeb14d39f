"""mrtune on a Starfish profile against the reference equations, what-if by what-if.

:func:`reproduce` writes a what-if configuration (and input specification) in Starfish's
formats, reads them with :func:`mrtune.profiling.starfish.load_starfish`, and returns mrtune's
phases beside the reference's (:mod:`.reference_model`). ``test_reproduction.py`` checks them
within 1%; :func:`table` prints the table of docs/starfish-differences.md
(``python -m tests.readers.starfish.reproduction``), and ``test_departures.py`` checks that the
document shows exactly what :func:`table` prints.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

from mrtune.costmodel import ConfigBatch, JobPrediction, predict_job
from mrtune.profiling.starfish import load_starfish

from .cases import CASES, conf_tree, input_tree, to_bytes
from .reference_model import RefTask, reference_job

FIXTURES = Path(__file__).resolve().parent / "fixtures"
MAP_PHASES = ("read", "map", "collect", "spill", "merge")
REDUCE_PHASES = ("shuffle", "merge", "reduce", "write")

#: (case, Hadoop 0.20 properties changed in the what-if conf, the same change for the reference,
#: number of splits in the what-if input specification)
WHATIFS: list[tuple[str, dict[str, str], dict, int | None]] = [
    ("terasort", {}, {}, None),
    ("terasort", {"io.sort.mb": "50"}, {"sort_mb": 50}, None),
    ("terasort", {"io.sort.record.percent": "0.15"}, {"rec_perc": 0.15}, None),
    ("terasort", {"mapred.reduce.tasks": "2"}, {"num_reducers": 2}, None),
    (
        "terasort",
        {"mapred.job.reduce.input.buffer.percent": "0.5"},
        {"reducer_in_perc": 0.5},
        None,
    ),
    ("terasort", {"mapred.output.compress": "true"}, {"out_compressed": True}, None),
    ("terasort", {}, {}, 16),
    ("wordcount", {}, {}, None),
    ("wordcount", {"mapred.reduce.tasks": "1"}, {"num_reducers": 1}, None),
    ("wordcount", {"io.sort.mb": "150"}, {"sort_mb": 150}, None),
]


@dataclass
class Reproduction:
    """One what-if: mrtune's prediction and the reference's map and reduce task."""

    num_splits: int
    pred: JobPrediction
    ref_map: RefTask
    ref_reduce: RefTask

    def phases(self) -> list[tuple[str, float, float]]:
        """``(label, mrtune ms, reference ms)`` for the nine phases of the document's table."""
        out = [
            (ph, float(self.pred.map_phase_ms[ph][0]), self.ref_map.phases_ms[ph])
            for ph in MAP_PHASES
        ]
        out += [
            (ph, float(self.pred.reduce_phase_ms[ph][0]), self.ref_reduce.phases_ms[ph])
            for ph in REDUCE_PHASES
        ]
        return out


def reproduce(
    name: str, props: dict[str, str], ref_changes: dict, splits: int | None, work: Path
) -> Reproduction:
    """Read the what-if in Starfish's formats from ``work`` and run both models."""
    case = CASES[name]
    whatif = replace(case, conf_properties={**case.conf_properties, **props})
    conf_xml = work / "conf.xml"
    conf_xml.write_bytes(to_bytes(conf_tree(whatif)))
    input_xml = FIXTURES / f"{name}_input.xml"
    if splits is not None:
        whatif = replace(whatif, num_splits=splits)
        input_xml = work / "input.xml"
        input_xml.write_bytes(to_bytes(input_tree(whatif)))
    profile, config, cluster = load_starfish(
        FIXTURES / f"{name}_profile.xml", input_xml, FIXTURES / f"{name}_cluster.xml", conf_xml
    )
    assert config.hadoop_version == 1
    pred = predict_job(profile, ConfigBatch.from_configs([config]), cluster)
    ref_conf = replace(case.conf, **ref_changes)
    m, r = reference_job(
        case.split_size, whatif.num_splits, False, ref_conf, case.stats, case.costs
    )
    return Reproduction(whatif.num_splits, pred, m, r)


def _cell(ours: float, theirs: float) -> str:
    if ours == 0 and theirs == 0:
        return "0 = 0"
    return f"{(ours - theirs) / theirs * 100:+.3f}%"


def table() -> list[str]:
    """The document's reproduction table, one line per what-if."""
    lines = [
        "| case | what-if | read | map | collect | spill | merge | shuffle | sort (merge) "
        "| reduce | write |",
        "|---|---|" + "---:|" * 9,
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for name, props, ref_changes, splits in WHATIFS:
            rep = reproduce(name, props, ref_changes, splits, Path(tmp))
            label = ", ".join(f"{k}={v}" for k, v in props.items()) or "profiled conf"
            if splits is not None:
                label += f", {splits} splits"
            cells = " | ".join(_cell(a, b) for _, a, b in rep.phases())
            lines.append(f"| {name} | {label} | {cells} |")
    return lines


if __name__ == "__main__":
    print("\n".join(table()))
