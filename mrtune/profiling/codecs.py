"""Which codec compressed a job's data, and how well it compressed this job's map output.

**Identifying the class.** Hadoop names a codec by its Java class
(``mapreduce.map.output.compress.codec``). mrtune knows Hadoop's own (``DefaultCodec``,
``GzipCodec``, ``BZip2Codec``, ``SnappyCodec``, ``Lz4Codec``, ``ZStandardCodec``) and hadoop-lzo's
``com.hadoop.compression.lzo.LzoCodec`` / ``LzopCodec``, each with a documented prior
(:data:`mrtune.costmodel.profile.CODEC_PRIORS`). Any other class in a history becomes
``unknown``: a stated fast-codec prior and a warning naming the class. It must never fall back
to the configuration default (zlib) in silence: zlib's CPU is ~10× a fast codec's and its ratio
much better, which would mislead every compression what-if.

**Measuring the ratio.** With map output compressed, ``IFile.Writer`` writes each partition
segment as a compressed stream of records (key length and value length as vints, then the
bytes) and a 2-byte EOF marker, followed by an uncompressed 4-byte checksum
(``IFileOutputStream``). So over a job::

    MAP_OUTPUT_MATERIALIZED_BYTES = C(records · (width + overhead) + 2 · P · M) + 4 · P · M

with ``P`` partitions and ``M`` maps, and the codec's ratio on this job's data is
``(materialized − 4·P·M) / (records · (width + overhead) + 2·P·M)``. Where the history has no
materialized bytes (Rumen keeps ``reduceShuffleBytes`` only), ``REDUCE_SHUFFLE_BYTES`` is the
same sum seen from the reduces: each fetch counts the segment's on-disk ``partLength``
(``ShuffleSchedulerImpl.copySucceeded``), and the successful reduces fetched every segment once.

**The codec probe.** A run at defaults compresses nothing, and a codec's ratio is a property
of the data: a prior cannot know it (random sort records barely compress; raw WordCount pairs
shrink ~30×). The harness's probe run (``mrtune.codec.probe=true``,
``mrtune/harness/java/mrtune/jobs/CodecProbeCollector.java``) re-writes every final map output
segment through ``IFile.Writer`` with each codec that loads, so its counters (group
:data:`PROBE_GROUP`) hold, per stage, ``RAW_BYTES`` (the uncompressed IFile streams: records
and EOF markers, what the model's ``ifile_bytes`` computes) and ``<Codec>.COMPRESSED_BYTES``
(what ``MAP_OUTPUT_MATERIALIZED_BYTES`` would be under that codec: each codec's block framing
inside, a 4-byte checksum per segment outside). The model's ratio is then
``(COMPRESSED_BYTES − 4·SEGMENTS) / RAW_BYTES`` exactly (:func:`codecs_from_probe`). Stage
``final`` is the shuffled (combined) data; stage ``emitted`` the map's records before the
combiner, sorted as a spill sorts them: the ratio of a configuration without the combiner.
Stage ``final`` is also timed (``<Codec>.COMPRESS_CPU_NS`` / ``UNCOMPRESS_CPU_NS`` against the
codec-less ``IFILE.WRITE_CPU_NS`` / ``READ_CPU_NS``): the codec's CPU per byte
(:func:`probe_cpu`), measured on the job's own data instead of a Silesia prior.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from typing import Any

from mrtune.costmodel.profile import CODEC_PRIORS, CodecStats
from mrtune.costmodel.properties import CODEC_CLASSES, codec_name

#: Bytes ``IFile`` keeps outside the compressed stream per segment, and inside it.
IFILE_CHECKSUM_BYTES = 4.0
IFILE_EOF_BYTES = 2.0
#: Counter group of the harness's codec probe (``CodecProbeCollector.GROUP``).
PROBE_GROUP = "mrtune.codec.probe"
#: The probe's codec names (simple Java class names) → mrtune's short names.
PROBE_CODECS: dict[str, str] = {
    "DefaultCodec": "default",
    "GzipCodec": "gzip",
    "BZip2Codec": "bzip2",
    "Lz4Codec": "lz4",
    "SnappyCodec": "snappy",
    "ZStandardCodec": "zstd",
}
#: What a codec's source says when the probe timed its CPU (the job fit then keeps it).
MEASURED_BY_PROBE_CPU = "CPU costs measured by probe (thread CPU"
#: The job property that asks for a probe run (never set in a timed run).
PROBE_PROPERTY = "mrtune.codec.probe"
#: The short name standing for a codec class mrtune does not know.
UNKNOWN_CODEC = "unknown"
#: Properties naming a codec class (Hadoop 2/3 names and their Hadoop 1 forms).
CODEC_PROPERTIES: tuple[str, ...] = (
    "mapreduce.map.output.compress.codec",
    "mapred.map.output.compression.codec",
    "mapreduce.output.fileoutputformat.compress.codec",
    "mapred.output.compression.codec",
)


def recognise_codecs(props: MutableMapping[str, str], warnings: list[str]) -> dict[str, str]:
    """Replace each codec class mrtune does not know by ``unknown`` (in place), with a warning.

    Returns property → the history's own class, for the classes replaced.
    """
    replaced: dict[str, str] = {}
    for key in CODEC_PROPERTIES:
        value = props.get(key)
        if value is None or not value.strip():
            continue
        try:
            codec_name(value)
        except ValueError:
            props[key] = UNKNOWN_CODEC
            replaced[key] = value
            prior = CODEC_PRIORS[UNKNOWN_CODEC]
            warnings.append(
                f"{key}={value!r} is not a codec class mrtune knows (allowed: "
                f"{', '.join(v for k, v in CODEC_CLASSES.items() if k != UNKNOWN_CODEC)}); "
                f"priced as a fast codec: ratio {prior.ratio}, "
                f"{prior.compress_ns_per_byte} ns/B to compress, "
                f"{prior.uncompress_ns_per_byte} ns/B to uncompress (measured ratio used "
                "where the counters give it)"
            )
    return replaced


def compressed_map_output_bytes(
    M: Mapping[str, float], R: Mapping[str, float], J: Mapping[str, float]
) -> tuple[float | None, str]:
    """The map output as stored and shuffled, and which counter gave it."""
    mat = M.get("MAP_OUTPUT_MATERIALIZED_BYTES") or J.get("MAP_OUTPUT_MATERIALIZED_BYTES")
    if mat:
        return float(mat), "MAP_OUTPUT_MATERIALIZED_BYTES"
    shuf = R.get("REDUCE_SHUFFLE_BYTES") or J.get("REDUCE_SHUFFLE_BYTES")
    if shuf:
        return float(shuf), "REDUCE_SHUFFLE_BYTES"
    return None, ""


def measure_map_output_codec(
    codec: str,
    counters: tuple[Mapping[str, float], Mapping[str, float], Mapping[str, float]],
    final_records: float | None,
    final_width: float | None,
    partitions: float,
    num_maps: float,
    warnings: list[str],
    record_overhead: float = 2.0,
) -> dict[str, CodecStats]:
    """``{codec: CodecStats}`` with the ratio measured on this job's map output (module doc),
    CPU costs at the codec's prior; ``{}`` when the counters cannot give it.

    ``counters``: the map-side, reduce-side and job counters. ``final_records`` and
    ``final_width``: the map output records and bytes per record after the combiner.
    ``record_overhead``: the vint key and value lengths IFile adds per record (2 bytes for
    keys and values under 128 bytes; not separable from the ratio when compressed).
    """
    M, R, J = counters
    stored, which = compressed_map_output_bytes(M, R, J)
    prior = CODEC_PRIORS[codec]
    if stored is None or not final_records or not final_width or final_records <= 0:
        warnings.append(
            f"map output compressed with {codec}: its ratio on this job's data is not "
            f"measurable from the counters; prior {prior.ratio} used ({prior.source})"
        )
        return {}
    segments = partitions * num_maps
    raw = final_records * (final_width + record_overhead) + IFILE_EOF_BYTES * segments
    ratio = (stored - IFILE_CHECKSUM_BYTES * segments) / raw
    if not 0 < ratio <= 1.5:
        warnings.append(
            f"map output compressed with {codec}: {which} ({stored:.0f}) gives a ratio of "
            f"{ratio:.3g} against {raw:.0f} uncompressed IFile bytes, outside (0, 1.5]; "
            f"prior {prior.ratio} used"
        )
        return {}
    return {
        codec: CodecStats(
            ratio=ratio,
            compress_ns_per_byte=prior.compress_ns_per_byte,
            uncompress_ns_per_byte=prior.uncompress_ns_per_byte,
            source=(
                f"measured: ratio = ({which} − 4 B checksum per segment) / uncompressed IFile "
                f"bytes (records × (width + {record_overhead:g}) + 2 B EOF per segment); CPU "
                "costs " + prior.source
            ),
        )
    }


def _stage_ratio(probe: Mapping[str, float], stage: str, codec: str) -> float | None:
    """``(COMPRESSED_BYTES − 4·SEGMENTS) / RAW_BYTES`` of one stage, ``None`` if absent."""
    raw = float(probe.get(f"{stage}.RAW_BYTES", 0))
    segs = float(probe.get(f"{stage}.SEGMENTS", 0))
    comp = probe.get(f"{stage}.{codec}.COMPRESSED_BYTES")
    if comp is None or raw <= 0:
        return None
    return (float(comp) - IFILE_CHECKSUM_BYTES * segs) / raw


def codecs_from_probe(
    counters: Mapping[str, Mapping[str, Any]], run_id: str, warnings: list[str]
) -> dict[str, CodecStats]:
    """``{codec: CodecStats}`` with ratios measured by a codec probe run (module doc), CPU
    costs at the codec's prior; ``{}`` when the run has no probe counters.

    A ratio outside CodecStats' range (0, 1.5] is refused with a warning (a probe bug or a
    foreign counter group); a codec the probe counted as unavailable is left on its prior.
    """
    probe = counters.get(PROBE_GROUP) or {}
    out: dict[str, CodecStats] = {}
    for java, name in PROBE_CODECS.items():
        final = _stage_ratio(probe, "final", java)
        if final is None:
            continue
        # a map past the probe's heap limit dropped its emitted copy: the sum is partial
        emitted = None if probe.get("emitted.SKIPPED") else _stage_ratio(probe, "emitted", java)
        bad = [r for r in (final, emitted) if r is not None and not 0 < r <= 1.5]
        if bad:
            warnings.append(
                f"codec probe {run_id}: {java} ratio {bad[0]:.4g} is outside (0, 1.5]; "
                f"prior {CODEC_PRIORS[name].ratio} kept"
            )
            continue
        prior = CODEC_PRIORS[name]
        stages = "final (shuffled) data" + ("; emitted data for no-combiner" if emitted else "")
        cpu = probe_cpu(probe, java)
        if cpu is None:
            comp, uncomp, how = prior.compress_ns_per_byte, prior.uncompress_ns_per_byte, ""
        else:
            comp, uncomp, how = cpu
        out[name] = CodecStats(
            ratio=final,
            ratio_uncombined=emitted,
            compress_ns_per_byte=comp,
            uncompress_ns_per_byte=uncomp,
            source=(
                f"measured by probe: run {run_id}, ratio = ({java} compressed IFile bytes − 4 B "
                f"checksum per segment) / uncompressed IFile bytes, {stages}; CPU costs "
                + (how or prior.source)
            ),
        )
    return out


def probe_cpu(probe: Mapping[str, float], java: str) -> tuple[float, float, str] | None:
    """``(compress ns per uncompressed byte, uncompress ns per compressed byte, provenance)``
    timed by the probe on the shuffled data (stage ``final``), or ``None`` without its timing
    counters (a probe run recorded before they existed, or a JVM without thread CPU time).

    ``CodecProbeCollector`` writes every segment through ``IFile.Writer`` without a codec
    and with each codec and reads each copy back through ``IFile.Reader``, each pass timed on
    the map thread's CPU clock (``ThreadMXBean.getCurrentThreadCpuTime``: the host's load does
    not advance it). The codec's own cost is its passes less the codec-less ones, which are
    the IFile framing, copy and checksum the model prices in its per-record and per-byte
    factors; so these are exactly the ns/byte ``costmodel/codecs.py`` charges: compress per
    uncompressed IFile byte, uncompress per compressed (on-disk) byte. A difference below 0
    (a codec that skips work the codec-less pass does, e.g. a CRC over fewer bytes) is 0.
    """
    keys = (
        f"final.{java}.COMPRESS_CPU_NS",
        f"final.{java}.UNCOMPRESS_CPU_NS",
        "final.IFILE.WRITE_CPU_NS",
        "final.IFILE.READ_CPU_NS",
    )
    if any(k not in probe for k in keys):
        return None
    c_ns, u_ns, w0, r0 = (float(probe[k]) for k in keys)
    raw = float(probe.get("final.RAW_BYTES", 0))
    segs = float(probe.get("final.SEGMENTS", 0))
    comp = float(probe.get(f"final.{java}.COMPRESSED_BYTES", 0)) - IFILE_CHECKSUM_BYTES * segs
    if raw <= 0 or comp <= 0 or min(c_ns, u_ns, w0, r0) < 0:
        return None
    c, u = max(c_ns - w0, 0.0) / raw, max(u_ns - r0, 0.0) / comp
    how = (
        f"{MEASURED_BY_PROBE_CPU.removeprefix('CPU costs ')} of {java} IFile passes less the codec-less pass's: "
        f"{(c_ns - w0) / 1e6:.1f} ms over {raw:.0f} uncompressed bytes, "
        f"{(u_ns - r0) / 1e6:.1f} ms over {comp:.0f} compressed bytes)"
    )
    return c, u, how


def is_probe_run(settings: Mapping[str, str]) -> bool:
    """Whether a run's ``-D`` settings asked for the codec probe (such a run is for counters
    only: never a calibration run, never scored)."""
    return str(settings.get(PROBE_PROPERTY, "")).strip().lower() == "true"
