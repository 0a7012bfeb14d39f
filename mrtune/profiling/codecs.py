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
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping

from mrtune.costmodel.profile import CODEC_PRIORS, CodecStats
from mrtune.costmodel.properties import CODEC_CLASSES, codec_name

#: Bytes ``IFile`` keeps outside the compressed stream per segment, and inside it.
IFILE_CHECKSUM_BYTES = 4.0
IFILE_EOF_BYTES = 2.0
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
