"""The widths a local run's maps show: the bytes a record of its full splits, and whether its
records are all one width (a fixed-width format such as the project's ``RecordInputFormat``).
Steps of :func:`mrtune.calibration.run_profile.profile_from_run`, which records each in the
profile's statistics with how it was measured."""

from __future__ import annotations

from mrtune.calibration.run_combiner import Prov
from mrtune.calibration.run_record import counter_value
from mrtune.readers.run_records import RunRecord


def split_width(rec: RunRecord, st: Prov) -> None:
    """``split_pair_width``: bytes per record of the run's full splits (the maps whose split,
    "Processing split: path:start+length", is the longest), when the run had more than one.

    Text lines vary in width, so a 32 MiB split's mean line is not the file's: the postings
    input's full split holds 337,507 lines where the file's mean width gives 337,504, and
    each line emits 12 words, so every map-side counter of the held-out runs was off by 36+
    records although the model was exact on the run's own splits. The tail split keeps what
    the file has left (``costmodel/job.py``), so totals do not change.
    """
    lengths = [a.split_length for a in rec.map_attempts]
    if len(lengths) < 2 or any(n is None or n <= 0 for n in lengths):
        st.defaulted("split_pair_width", "one split or split lengths not logged: file's width")
        return
    longest = max(n for n in lengths if n is not None)
    full = [a for a in rec.map_attempts if a.split_length == longest]
    sizes = rec.input_file_sizes()
    if len(sizes) > 1:
        # several files: a full split is one that is not its file's last (tail) split
        full = [
            a
            for a in full
            if a.split_path in sizes
            and int(a.split_start or 0) + int(a.split_length or 0) < sizes[a.split_path]
        ]
        if not full:
            st.defaulted("split_pair_width", "no full split: each map read a file's tail")
            return
    recs = sum(counter_value(a.counters, "MAP_INPUT_RECORDS") for a in full)
    if recs <= 0:
        st.defaulted("split_pair_width", "MAP_INPUT_RECORDS of the full splits is 0")
        return
    st.measured(
        "split_pair_width",
        longest * len(full) / recs,
        f"split length {longest} × {len(full)} full splits / their MAP_INPUT_RECORDS {recs:.0f}",
    )


def record_width(rec: RunRecord, width_in: float, st: Prov) -> None:
    """``input_record_bytes``: the input's records are all ``w`` bytes, when the file holds a
    whole number of them and every map read exactly the records that start in its split,
    ``ceil(end / w) − ceil(start / w)`` (``RecordInputFormat``; issue 20: with 100-byte
    records a 32 MiB split's first map reads 335,545, the next 335,544)."""
    w = round(width_in)
    maps = [a for a in rec.map_attempts if a.split_length and a.split_start is not None]
    if abs(width_in - w) > 1e-9 * w or w <= 0 or not maps or len(maps) != len(rec.map_attempts):
        st.defaulted("input_record_bytes", "records of varying width (or splits not logged)")
        return
    total = round(float(rec.input.bytes) / w)
    for a in maps:
        start, end = int(a.split_start or 0), int(a.split_start or 0) + int(a.split_length or 0)
        owned = min(-(-end // w), total) - -(-start // w)
        if counter_value(a.counters, "MAP_INPUT_RECORDS") != owned:
            st.defaulted(
                "input_record_bytes",
                f"map {a.attempt_id} did not read ceil(end/w) − ceil(start/w)",
            )
            return
    st.measured(
        "input_record_bytes",
        float(w),
        f"input file bytes / MAP_INPUT_RECORDS = {w} B, and each of the {len(maps)} maps read "
        "the records starting in its split (ceil(end/w) − ceil(start/w))",
    )


__all__ = ["record_width", "split_width"]
