"""What ``validate`` checks of its run records before it scores them: a label's runs are
repeats of one configuration, and every label of a job ran the calibration run's code."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from urllib.parse import unquote_plus

from mrtune.calibration.run_record import run_config
from mrtune.errors import InputError
from mrtune.readers.run_records import RunRecord

#: The properties that name a job's code (its map and reduce classes, Hadoop Streaming's
#: commands): runs of one main class that differ in one of them are different jobs. The
#: combiner is not among them: switching it off is a setting the matrix varies (wc-nocombiner).
CODE_KEYS = (
    "mapreduce.job.map.class",
    "mapreduce.job.reduce.class",
    "mapred.mapper.class",
    "mapred.reducer.class",
    "stream.map.streamprocessor",
    "stream.reduce.streamprocessor",
)


def check_repeats(label: str, recs: Sequence[RunRecord]) -> None:
    """A label's runs are repeats of one configuration on one input: their medians are what
    a configuration is scored on. A second ``hadoop-run`` under a label with other ``-D``
    settings would otherwise pass as a repeat (a 5 MB sort buffer's run averaged with the
    default's)."""
    first, cfg0 = recs[0], run_config(recs[0]).model_dump(by_alias=True)
    for r in recs[1:]:
        cfg = run_config(r).model_dump(by_alias=True)
        diff = [f"{k} {cfg0[k]} in {first.run_id}, {cfg[k]} in {r.run_id}" for k in cfg0
                if cfg[k] != cfg0[k]]  # fmt: skip
        if r.input.bytes != first.input.bytes:
            diff.append(f"input {first.input.bytes:,} B vs {r.input.bytes:,} B")
        if diff:
            raise InputError(
                f"label {label}: its runs are no repeats of one configuration ({diff[0]}"
                f"{f' and {len(diff) - 1} more' if len(diff) > 1 else ''})",
                allowed="one configuration and input a label: run other settings under their "
                "own --label",
            )


def check_same_code(
    by_label: Mapping[str, Sequence[RunRecord]], calibration: Mapping[str, RunRecord]
) -> None:
    """Every label is predicted from its job's calibration run, and a ``--jar`` job is its
    main class: two Hadoop Streaming jobs (``cat`` and ``tr … | uniq``) are both
    ``hadoopstreaming``. A label whose code differs from the calibration run's is refused,
    never scored with another job's profile."""
    for label, recs in by_label.items():
        cal = calibration.get(recs[0].job)
        if cal is None:
            continue
        mine, theirs = recs[0].ran_with(), cal.ran_with()
        for key in CODE_KEYS:
            if mine.get(key) != theirs.get(key):
                a, b = _shown(mine.get(key)), _shown(theirs.get(key))
                raise InputError(
                    f"label {label} ran other code than its job's calibration run "
                    f"{cal.label or cal.run_id} ({key} {a!r} vs {b!r}): it is another job "
                    f"under the main class {recs[0].job}",
                    allowed="one job's runs: keep each job in its own runs file, or name its "
                    "calibration run with --calibrate",
                )


def _shown(value: str | None) -> str | None:
    """A streaming command as typed (job.xml keeps it URL-encoded)."""
    return unquote_plus(value) if value is not None else None
