"""Write the example job profiles of ``mrtune/examples/workflows/profiles/`` (run from the repo root).

The profiles are hand-written, TPC-H-like jobs at scale factor 20 (lineitem ~15 GB, orders
~3.4 GB, customer ~0.5 GB): selectivities are what the queries' filters, projections, joins and
aggregations roughly do, cost factors are the model's defaults. They are built through
:class:`mrtune.costmodel.profile.JobProfile`, so every file validates.

    python mrtune/examples/workflows/make_profiles.py
"""

from __future__ import annotations

from pathlib import Path

from mrtune.costmodel.profile import DataflowStats, JobProfile

HERE = Path(__file__).resolve().parent / "profiles"
NOTE = "defaulted: hand-written example profile (TPC-H-like, scale factor 20)"


def profile(
    job_id: str,
    name: str,
    input_gb: float,
    files: int,
    reduces: int,
    *,
    combiner: bool = False,
    **stats: float,
) -> JobProfile:
    combine_class = "org.apache.pig.backend.hadoop.executionengine.mapReduceLayer.PigCombiner"
    props = {"mapreduce.job.reduces": str(reduces)}
    if combiner:
        props["mapreduce.job.combine.class"] = combine_class
    return JobProfile(
        job_id=job_id,
        job_name=name,
        input_bytes=input_gb * 1e9,
        input_files=files,
        has_combiner=combiner,
        combine_class=combine_class if combiner else None,
        stats=DataflowStats(**stats),
        provenance={"stats": NOTE, "costs": NOTE},
        source_properties=props,
    )


PROFILES = {
    # map-heavy scan with a pre-aggregating combiner: lineitem -> (orderkey, revenue)
    "lineitem_agg": profile(
        "job_example_0001",
        "lineitem revenue by order",
        15.0,
        24,
        64,
        combiner=True,
        input_pair_width=130.0,
        map_size_sel=0.18,
        map_pairs_sel=0.55,
        combine_pairs_sel=0.45,
        combine_size_sel=0.5,
        reduce_size_sel=0.6,
        reduce_pairs_sel=0.25,
        reduce_pairs_per_group=4.0,
    ),
    # repartition join customer x orders, reduce-heavy
    "cust_orders_join": profile(
        "job_example_0002",
        "customer join orders",
        3.9,
        8,
        32,
        input_pair_width=110.0,
        map_size_sel=0.9,
        map_pairs_sel=1.0,
        reduce_size_sel=0.7,
        reduce_pairs_sel=0.45,
        reduce_pairs_per_group=3.0,
    ),
    # small dimension join supplier x nation x region
    "supp_nation": profile(
        "job_example_0003",
        "supplier join nation region",
        0.03,
        3,
        4,
        input_pair_width=140.0,
        map_size_sel=0.8,
        map_pairs_sel=1.0,
        reduce_size_sel=0.6,
        reduce_pairs_sel=0.2,
        reduce_pairs_per_group=5.0,
    ),
    # join of the two stage-1 outputs (orders x lineitem aggregates)
    "orders_lineitem_join": profile(
        "job_example_0004",
        "orders join lineitem",
        4.4,
        96,
        64,
        input_pair_width=60.0,
        map_size_sel=1.0,
        map_pairs_sel=1.0,
        reduce_size_sel=0.5,
        reduce_pairs_sel=0.3,
        reduce_pairs_per_group=2.0,
    ),
    # replicated-side join with the supplier/nation table
    "supp_join": profile(
        "job_example_0005",
        "join supplier nation",
        1.3,
        64,
        16,
        input_pair_width=70.0,
        map_size_sel=1.0,
        map_pairs_sel=1.0,
        reduce_size_sel=0.4,
        reduce_pairs_sel=0.2,
        reduce_pairs_per_group=6.0,
    ),
    # group by nation, sum revenue (combiner collapses almost everything)
    "group_revenue": profile(
        "job_example_0006",
        "revenue by nation",
        0.5,
        16,
        8,
        combiner=True,
        input_pair_width=50.0,
        map_size_sel=0.4,
        map_pairs_sel=1.0,
        combine_pairs_sel=0.01,
        combine_size_sel=0.01,
        max_distinct_keys=25.0,
        reduce_size_sel=0.001,
        reduce_pairs_sel=0.001,
        reduce_pairs_per_group=1000.0,
    ),
    # ORDER BY revenue DESC: one reducer sorts a tiny input
    "order_by": profile(
        "job_example_0007",
        "order by revenue",
        0.001,
        1,
        1,
        input_pair_width=40.0,
        reduce_pairs_per_group=1.0,
    ),
}


def dump(prof: JobProfile) -> str:
    """The file text of one example profile (``scripts/make_examples.py --check`` compares it)."""
    return prof.model_dump_json(indent=2, exclude_defaults=True) + "\n"


def main() -> None:
    HERE.mkdir(parents=True, exist_ok=True)
    for name, prof in PROFILES.items():
        path = HERE / f"{name}.json"
        path.write_text(dump(prof))
        JobProfile.model_validate_json(path.read_text())  # round trip
        print(path)


if __name__ == "__main__":
    main()
