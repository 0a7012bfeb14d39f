"""Published coefficients shipped as named models.

``ceesay2019``: Ceesay, Barker and Lin, "Benchmarking and Performance Modelling of MapReduce
Communication Pattern" (IEEE CloudCom 2019), eqs. 19-24, fitted on their 8-node YARN cluster.
The drivers are the variables the equations are printed with:

* eq. 19 ``T_read = 0.01 D + 1.33`` -- ``D`` the input size (MB, Table II);
* eq. 20 ``T_collect = 0.01 M_sel + 0.97`` and eq. 21 ``T_spill = 0.02 M_sel + 0.98`` --
  ``M_sel`` the map selectivity in percent (Table II: ``(M_d/d) * 100``);
* eq. 22 ``T_merge = 0.002 M_sel log M_sel + 4.80`` -- natural log;
* eq. 23 ``T_shuffle = 10.45 S_d + 579.48 M_t + 6144.6``;
* eq. 24 ``T_write = 6.94 R_d + 2139.98``.

The paper says all sizes are in MB and times in ms; its RMSE per phase is kept in each phase's
``metrics["paper_rmse_ms"]``. (The authors' R script ``allAnalysis.R`` sums the map-side phase
durations of a job in *seconds* before fitting eqs. 19-22, so those four may really be in s;
the preset keeps the paper's stated unit, ms.)
"""

from __future__ import annotations

from mrtune.costmodel.regression._model import PhaseModel, RegressionModel


def _pm(phase: str, intercept: float, coefficients: dict[str, float], rmse: float) -> PhaseModel:
    return PhaseModel(
        phase=phase,
        intercept=intercept,
        coefficients=coefficients,
        metrics={"paper_rmse_ms": rmse},
    )


CEESAY2019 = RegressionModel(
    name="ceesay2019",
    description=(
        "Ceesay, Barker, Lin (CloudCom 2019) eqs. 19-24, 8-node YARN cluster; "
        "eq. 17 with fractional waves M_t/N_c and R_t/N_c"
    ),
    waves="fractional",
    phases={
        "read": _pm("read", 1.33, {"D": 0.01}, 4.08),
        "collect": _pm("collect", 0.97, {"M_sel": 0.01}, 3.036),
        "spill": _pm("spill", 0.98, {"M_sel": 0.02}, 2.522),
        "merge": _pm("merge", 4.80, {"M_sel_log_M_sel": 0.002}, 9.36),
        "shuffle": _pm("shuffle", 6144.6, {"S_d": 10.45, "M_t": 579.48}, 4655.0),
        "write": _pm("write", 2139.98, {"R_d": 6.94}, 2427.0),
    },
)

PRESETS: dict[str, RegressionModel] = {CEESAY2019.name: CEESAY2019}
"""Named models usable wherever a model file is expected."""
