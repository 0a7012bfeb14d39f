"""A machine's (or cluster's) cost factors as a file: ``machine-costs.json``.

Written by ``mrtune calibrate-machine`` (:func:`mrtune.calibration.machine.fit_machine`) and read
by ``--machine``, which starts a job's calibration from these factors instead of the documented
priors (:func:`mrtune.calibration.run_profile.profile_from_run`).
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mrtune.costmodel.profile import CostFactors, JobProfile
from mrtune.errors import InputError
from mrtune.profiling.codecs import MEASURED_BY_PROBE_CPU

#: Costs of the job's own code: refitted on the job's calibration run (its map, reduce and
#: combine functions, and its key comparator, which the sort's comparisons call). Everything
#: else (disk, shuffle, merge, framework per-record work, per-task time, codecs) belongs to
#: the machine.
JOB_FACTORS: tuple[str, ...] = ("map_cpu", "reduce_cpu", "combine_cpu", "sort_cpu")


#: What a machine file supplies to a YARN history's fit (``mrtune validate --machine`` on
#: ``hadoop-run --mode yarn`` runs): the fixed cost of a spill (a new spill file and its index,
#: ``MapTask.sortAndSpill``) and of a segment's seek in a merge (``Merger``). Both are a task's
#: own operations on its node's local disk, the same in a LocalJobRunner thread as in a
#: container on that node, and one history rarely separates them (one spill per map, every
#: reduce merging as many segments): without them the fit keeps the documented priors, a
#: 300 ms spill measured on Ceesay et al.'s HDD cluster. The rest of a machine file does not
#: carry over to a cluster: local mode reads and writes the local file system, not HDFS, and
#: its "shuffle" is a file copy, not an HTTP fetch.
CLUSTER_PRIOR_FACTORS: tuple[str, ...] = ("spill_file_ns", "segment_seek_ns")


class CodecCpu(BaseModel):
    """A codec's CPU cost on this machine (ns per uncompressed / compressed byte)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    compress_ns_per_byte: float = Field(ge=0)
    uncompress_ns_per_byte: float = Field(ge=0)
    source: str = ""


class SegmentQuality(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    segment: str
    n: int
    observed_mean_ms: float
    model_mean_ms: float


class MachineCosts(BaseModel):
    """Cost factors of one machine (or cluster), with where each came from."""

    model_config = ConfigDict(extra="forbid")
    schema_version: int = 1
    source: str = Field("", description="what the factors were fitted on")
    runs: int = Field(0, ge=0)
    costs: CostFactors = Field(default_factory=CostFactors)
    codecs: dict[str, CodecCpu] = Field(default_factory=dict)
    provenance: dict[str, str] = Field(default_factory=dict)
    segments: list[SegmentQuality] = Field(default_factory=list)
    warmup_ms: dict[str, float] = Field(
        default_factory=dict,
        description="local mode: extra time of the first map's and first reduce's segments in "
        "the shared JVM (JIT compilation), per segment, ms",
    )

    def apply_codecs(self, profile: JobProfile) -> JobProfile:
        """``profile`` with this machine's codec CPU costs (ratios stay the job's or the prior).

        A codec whose CPU the codec probe timed on this job's own map output (source
        :data:`~mrtune.profiling.codecs.MEASURED_BY_PROBE_CPU`) keeps the probe's figures: a
        per-job measurement on the job's data wins over the benchmark's generic one (issue
        20). Its source then says so, naming the machine figure it was preferred to.
        """
        codecs = dict(profile.codecs)
        for name, cpu in self.codecs.items():
            base = profile.codec(name)
            if MEASURED_BY_PROBE_CPU in base.source:
                codecs[name] = base.model_copy(
                    update={
                        "source": f"{base.source}; CPU: the probe's, kept over the machine "
                        f"benchmark's ({cpu.compress_ns_per_byte:.3g} / "
                        f"{cpu.uncompress_ns_per_byte:.3g} ns/B, {self.source})"
                    }
                )
                continue
            # a copy: the job's ratios (combined and as emitted) stay, only the CPU changes
            codecs[name] = base.model_copy(
                update={
                    "compress_ns_per_byte": cpu.compress_ns_per_byte,
                    "uncompress_ns_per_byte": cpu.uncompress_ns_per_byte,
                    "source": f"{base.source}; CPU: {cpu.source}",
                }
            )
        return profile.model_copy(update={"codecs": codecs})

    def save(self, path: Path) -> None:
        path.write_text(self.model_dump_json(indent=1) + "\n")

    def cluster_priors(self) -> dict[str, float]:
        """The factors of :data:`CLUSTER_PRIOR_FACTORS`: the priors a history's fit starts
        from where the history cannot separate them."""
        return {f: float(getattr(self.costs, f)) for f in CLUSTER_PRIOR_FACTORS}

    @classmethod
    def load(cls, path: Path) -> MachineCosts:
        try:
            return cls.model_validate(json.loads(Path(path).read_text()))
        except FileNotFoundError as exc:
            raise InputError("machine cost file not found", path=str(path)) from exc
        except json.JSONDecodeError as exc:
            raise InputError(f"not JSON: {exc.msg} (line {exc.lineno})", path=str(path)) from exc
        except ValidationError as exc:
            err = exc.errors()[0]
            raise InputError(
                f"not a machine cost file: {err['msg']}",
                path=str(path),
                field=".".join(str(x) for x in err["loc"]),
            ) from exc
