"""Codec ratios (and CPU) for a run's profile: from the run's own compressed output, from
the codec probe run on the same data, or from other compressed runs of the same data (split
from :mod:`mrtune.calibration.run_profile`; issue 20 Deliver 2).
"""

from __future__ import annotations

from collections.abc import Iterable

from mrtune.calibration.run_combiner import Prov, map_combine_split
from mrtune.calibration.run_record import (
    IFILE_SEGMENT_BYTES,
    IFILE_SMALL_RECORD_OVERHEAD,
    flat_counters,
    run_config,
)
from mrtune.costmodel.config import HadoopConfig
from mrtune.costmodel.map_task import IFILE_CHECKSUM_BYTES, IFILE_EOF_BYTES
from mrtune.costmodel.profile import CODEC_PRIORS, CodecStats
from mrtune.profiling.codecs import codecs_from_probe, is_probe_run
from mrtune.profiling.combine_fit import fit_width_law
from mrtune.readers.run_records import RunRecord


def ifile_and_codecs(
    rec: RunRecord,
    cfg: HadoopConfig,
    J: dict[str, float],
    st: Prov,
    final_recs: float,
    width: float,
    codec_runs: Iterable[RunRecord],
) -> dict[str, CodecStats]:
    """IFile framing, the combined output width and codec ratios (MAP_OUTPUT_MATERIALIZED_BYTES).

    Uncompressed, the materialized bytes are the records plus IFile's framing
    (``IFile.Writer``: vint lengths per record, EOF and CRC per segment), which separates the
    per-record overhead, or, with a combiner, the combined records' width.
    """
    has_combiner = cfg.combine_class is not None
    mat = J.get("MAP_OUTPUT_MATERIALIZED_BYTES", 0.0)
    codecs: dict[str, CodecStats] = {}
    segs = len(rec.map_attempts) * float(max(rec.num_reduces, 1))
    if cfg.map_output_compress:
        st.defaulted("ifile_record_overhead", "map output compressed: IFile framing not separable")
        codecs.update(_codec_from_run(rec, cfg, final_recs, width, segs))
    elif final_recs > 0 and mat > 0:
        per_rec = (mat - IFILE_SEGMENT_BYTES * segs) / final_recs
        if has_combiner:
            # WordCount-like keys and values are < 128 bytes: 2 bytes of vints per record;
            # what remains is the combined records' width.
            comb_w = per_rec - IFILE_SMALL_RECORD_OVERHEAD
            sel = st.values.get("combine_pairs_sel", 1.0)
            st.measured(
                "combine_size_sel",
                min(max(sel * comb_w / width, 1e-9), 1.5),
                "combine_pairs_sel × combined pair width / map output pair width, the width "
                "from (MAP_OUTPUT_MATERIALIZED_BYTES − 6·segments)/final records − 2",
            )
            st.defaulted("ifile_record_overhead", "2 bytes (two 1-byte vints) assumed")
            fit_width_law(st, width, J.get("MAP_OUTPUT_RECORDS", 0.0), final_recs)
        else:
            st.measured(
                "ifile_record_overhead",
                min(max(per_rec - width, 0.0), 20.0),
                "(MAP_OUTPUT_MATERIALIZED_BYTES − 6·partitions·maps) / records − pair width",
            )
    if has_combiner and "combine_width_growth" not in st.values:
        st.defaulted("combine_width_growth", "combined width not separable: width kept")
    if has_combiner and "combine_size_sel" not in st.values and "combine_pairs_sel" in st.values:
        st.values["combine_size_sel"] = st.values["combine_pairs_sel"]
        st.prov["stats.combine_size_sel"] = (
            "defaulted: combined pair width not separable (compressed output): width kept"
        )
    comb_width = width * combined_width_factor(st, has_combiner)
    for name, stats in codecs_from_runs(rec, codec_runs, comb_width).items():
        codecs.setdefault(name, stats)
    return codecs


def combined_width_factor(st: Prov, has_combiner: bool) -> float:
    """How much wider a combined record is than a map output record (1 without a combiner)."""
    if not has_combiner:
        return 1.0
    return st.values.get("combine_size_sel", 1.0) / st.values.get("combine_pairs_sel", 1.0)


def _same_map_output(a: RunRecord, b: RunRecord) -> bool:
    """Whether two runs' map outputs are the same kind of data (codec ratios carry over)."""
    if a.input.path != b.input.path:
        return False
    wa = flat_counters(a.counters)
    wb = flat_counters(b.counters)
    ra, rb = wa.get("MAP_OUTPUT_RECORDS", 0.0), wb.get("MAP_OUTPUT_RECORDS", 0.0)
    if ra <= 0 or rb <= 0:
        return False
    return (
        abs(wa.get("MAP_OUTPUT_BYTES", 0.0) / ra - wb.get("MAP_OUTPUT_BYTES", 0.0) / rb)
        < 1e-6 * (wa.get("MAP_OUTPUT_BYTES", 0.0) / ra) + 1e-9
    )


def probe_codecs(
    rec: RunRecord, runs: Iterable[RunRecord], warnings: list[str]
) -> dict[str, CodecStats]:
    """Codec ratios from the first codec probe run (``mrtune.codec.probe=true``,
    :func:`mrtune.profiling.codecs.codecs_from_probe`) over the same map output data as ``rec``."""
    for other in runs:
        if other.success and is_probe_run(other.settings) and _same_map_output(rec, other):
            got = codecs_from_probe(other.counters, other.run_id, warnings)
            if got:
                return got
    return {}


def codecs_from_runs(
    rec: RunRecord, runs: Iterable[RunRecord], combined_width: float | None = None
) -> dict[str, CodecStats]:
    """Codec ratios measured by ``runs`` on the same map output data as ``rec`` (same input
    file and map output pair width, combiner used alike), first run per codec.

    The ratio is a property of the data the codec sees: the same records, combined or not
    (combined WordCount output compresses far less than the raw (word, 1) pairs).
    ``combined_width``: the combined pair width (the calibrated profile's); by default the
    map output width.
    """
    cfg = run_config(rec)
    J = flat_counters(rec.counters)
    mor, mob = J.get("MAP_OUTPUT_RECORDS", 0.0), J.get("MAP_OUTPUT_BYTES", 0.0)
    width = combined_width if combined_width is not None else (mob / mor if mor > 0 else 0.0)
    same = [r for r in runs if r.success and _same_map_output(rec, r)]
    return codec_ratios_from(same, has_combiner=cfg.combine_class is not None, width=width)


def codec_ratios_from(
    runs: Iterable[RunRecord], *, has_combiner: bool, width: float
) -> dict[str, CodecStats]:
    """Codec ratios measured by ``runs``, which the caller has matched to the data being
    predicted (:func:`codecs_from_runs`: the same input file; a YARN history: the same job
    and record generator), first run per codec; ``width``: the predicted job's (combined)
    map output pair width, the IFile stream the ratio is taken over."""
    out: dict[str, CodecStats] = {}
    for other in runs:
        if is_probe_run(other.settings):
            continue  # counters only (_probe_codecs reads them)
        ocfg = run_config(other)
        if not ocfg.map_output_compress or ocfg.map_output_codec in out:
            continue
        if ocfg.use_combiner != has_combiner:
            continue
        if has_combiner:
            o_final = sum(
                (s[3] if s[2] > 0 else s[1]) for s in map(map_combine_split, other.map_attempts)
            )
        else:
            o_final = flat_counters(other.counters).get("MAP_OUTPUT_RECORDS", 0.0)
        if o_final <= 0:
            continue
        segs_o = len(other.map_attempts) * max(other.num_reduces, 1)
        out.update(_codec_from_run(other, ocfg, o_final, width, segs_o))
    return out


def _codec_from_run(
    rec: RunRecord, cfg: HadoopConfig, final_recs: float, width: float, segs: float
) -> dict[str, CodecStats]:
    """The map-output codec's ratio on this job's data: (materialized − checksums) ÷ the IFile
    stream's uncompressed length (records × (width + 2) + 2 EOF bytes per segment)."""
    mat = flat_counters(rec.counters).get("MAP_OUTPUT_MATERIALIZED_BYTES", 0.0)
    u = final_recs * (width + IFILE_SMALL_RECORD_OVERHEAD) + IFILE_EOF_BYTES * segs
    if mat <= 0 or u <= 0:
        return {}
    ratio = (mat - IFILE_CHECKSUM_BYTES * segs) / u
    if not 0 < ratio <= 1.5:
        return {}
    prior = CODEC_PRIORS[cfg.map_output_codec]
    return {
        cfg.map_output_codec: CodecStats(
            ratio=ratio,
            compress_ns_per_byte=prior.compress_ns_per_byte,
            uncompress_ns_per_byte=prior.uncompress_ns_per_byte,
            source=f"measured: ratio from run {rec.run_id} (MAP_OUTPUT_MATERIALIZED_BYTES); "
            f"CPU costs {prior.source}",
        )
    }
