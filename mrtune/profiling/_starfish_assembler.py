"""The Starfish profile assembler: statistics, cost factors, codecs and observations.

:class:`Assembler` joins the two halves (:mod:`mrtune.profiling._starfish_stats`, reference
Table 2; :mod:`mrtune.profiling._starfish_costs`, Table 3) and adds what needs both: the
codecs, where Starfish's one intermediate and one output compression ratio (with their
compress and uncompress costs) are filed under the codecs the configuration names, and the
observations, every profile section kept verbatim as a
:class:`~mrtune.costmodel.profile.TaskTiming` so nothing in the file is lost. Used by
:func:`mrtune.profiling.starfish.load_starfish` (and, per input, by
:func:`mrtune.profiling._starfish_classes.map_classes`).
"""

from __future__ import annotations

import math

from mrtune.costmodel.config import HadoopConfig
from mrtune.costmodel.profile import CODEC_PRIORS, CodecStats, TaskTiming
from mrtune.profiling._starfish_costs import Costs
from mrtune.profiling._starfish_stats import Statistics
from mrtune.readers._starfish_keys import MAP_TIMINGS, REDUCE_TIMINGS


class Assembler(Statistics, Costs):
    """Turns the parsed files into mrtune's models, recording provenance and warnings."""

    # -- codecs
    def codecs(self, config: HadoopConfig, has_conf: bool) -> dict[str, CodecStats]:
        """Starfish's single intermediate and output ratios, filed under the configured codecs."""
        out: dict[str, CodecStats] = {}
        interm = self.statistic("INTERM_COMPRESS_RATIO")
        if interm is not None:
            name = config.map_output_codec
            if not (has_conf and config.map_output_compress):
                self.warnings.append(
                    f"{self.job.path}: INTERM_COMPRESS_RATIO={interm[0]:g} is filed under codec "
                    f"{name!r}; the configuration does not compress map output, so it applies "
                    "only if a what-if turns compression on with that codec"
                )
            prior = CODEC_PRIORS[name]
            comp, red_comp = self._codec_cost("INTERM_COMPRESS_CPU_COST")
            unc, red_unc = self._codec_cost("INTERM_UNCOMPRESS_CPU_COST")
            apart = [
                f"reduce-side {what} {v:g} ns/B"
                for what, v in (("compress", red_comp), ("uncompress", red_unc))
                if v is not None
            ]
            out[name] = CodecStats(
                ratio=interm[0],
                compress_ns_per_byte=comp[0] if comp else prior.compress_ns_per_byte,
                uncompress_ns_per_byte=unc[0] if unc else prior.uncompress_ns_per_byte,
                reduce_compress_ns_per_byte=red_comp,
                reduce_uncompress_ns_per_byte=red_unc,
                source=(
                    f"{interm[1]}; compress {'measured' if comp else 'prior'}, "
                    f"uncompress {'measured' if unc else 'prior'}"
                    + (f" ({', '.join(apart)}, reduce profile)" if apart else "")
                ),
            )
            self.provenance[f"codecs.{name}"] = out[name].source
        outr = self.statistic("OUT_COMPRESS_RATIO")
        if outr is not None:
            name = config.output_codec
            comp = self.cost("OUTPUT_COMPRESS_CPU_COST")
            if name in out:
                if not math.isclose(out[name].ratio, outr[0], rel_tol=1e-6):
                    self.warnings.append(
                        f"{self.job.path}: map output and job output both use codec {name!r} "
                        f"with different Starfish ratios (INTERM_COMPRESS_RATIO="
                        f"{out[name].ratio:g}, OUT_COMPRESS_RATIO={outr[0]:g}); mrtune keeps one "
                        "ratio per codec and uses the intermediate one"
                    )
            else:
                prior = CODEC_PRIORS[name]
                out[name] = CodecStats(
                    ratio=outr[0],
                    compress_ns_per_byte=comp[0] if comp else prior.compress_ns_per_byte,
                    uncompress_ns_per_byte=prior.uncompress_ns_per_byte,
                    source=f"{outr[1]}; compress {'measured' if comp else 'prior'}",
                )
                self.provenance[f"codecs.{name}"] = out[name].source
        return out

    # -- observations
    def observed(self) -> tuple[list[TaskTiming], dict[str, float]]:
        tasks: list[TaskTiming] = []
        totals: dict[str, float] = {}
        for tp in [*self.job.maps, *([self.job.reduce] if self.job.reduce else [])]:
            names = MAP_TIMINGS if tp.kind == "map" else REDUCE_TIMINGS
            phases = {names.get(k, k.lower()): v for k, v in tp.timings.items()}
            # ``total`` as in profiler.history's attempts: the task's whole time.
            phases["total"] = float(sum(tp.timings.values()))
            counters: dict[str, float] = dict(tp.counters)
            counters.update({f"statistic:{k}": v for k, v in tp.statistics.items()})
            counters.update({f"cost_factor:{k}": v for k, v in tp.cost_factors.items()})
            counters["num_tasks"] = float(tp.num_tasks)
            counters["input_index"] = float(tp.input_index)
            tasks.append(
                TaskTiming(
                    attempt_id=tp.id,
                    kind=tp.kind,  # type: ignore[arg-type]
                    start_ms=0,
                    finish_ms=round(sum(tp.timings.values())),
                    phases_ms=phases,
                    counters=counters,
                )
            )
            for k, v in tp.counters.items():
                totals[k] = totals.get(k, 0.0) + v * tp.num_tasks
        return tasks, totals
