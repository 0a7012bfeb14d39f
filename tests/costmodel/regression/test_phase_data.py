"""Reading the long-format phase-time CSV, and its errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mrtune.errors import InputError
from mrtune.readers.phase_data import (
    load_phase_data,
    parse_phase_csv,
    rows_to_csv,
    rows_to_observations,
)

# The header and value style of the authors' ExtractDataFromLogs.java (allOut8Node.csv).
PAPER_STYLE = """Operation,Duration,MapSelectivity,MapInputRec,MapOutputRec,Mappers,DataSize,BlockSize
read_SC,1204,10,5242880,524288,4,500,128
collect_SC,310,10,5242880,524288,4,500,128
Shuffle_SC,20511,10,5242880,524288,4,500,128
"""


def test_reads_the_paper_csv_style() -> None:
    rows = parse_phase_csv(PAPER_STYLE, "allOut8Node.csv")
    assert [r.operation for r in rows] == ["read", "collect", "shuffle"]
    assert rows[0].duration_ms == 1204 and rows[0].mappers == 4 and rows[0].reducers == 1
    obs = rows_to_observations(rows)
    assert obs.phases == ("read", "collect", "shuffle")
    np.testing.assert_array_equal(obs.base["D"], [500, 500, 500])
    assert np.isnan(obs.base["S_d"]).all()  # not measured: eq. 7 applies


def test_csv_round_trip_keeps_every_value(synthetic_csv_text: str) -> None:
    rows = parse_phase_csv(synthetic_csv_text, "a.csv")
    again = parse_phase_csv(rows_to_csv(rows), "b.csv")
    assert again == rows


def test_missing_column_names_file_and_column(tmp_path: Path) -> None:
    path = tmp_path / "no-mappers.csv"
    path.write_text(PAPER_STYLE.replace(",Mappers", ""))
    with pytest.raises(InputError) as info:
        load_phase_data([path])
    message = str(info.value)
    assert str(path) in message and "Mappers" in message and "missing column" in message
    assert "\n" not in message


@pytest.mark.parametrize(
    ("old", "new", "column", "value", "line"),
    [
        ("read_SC,1204,", "read_SC,-5,", "Duration", "-5.0", 2),
        ("collect_SC,310,10,", "collect_SC,310,ten,", "MapSelectivity", "'ten'", 3),
        ("Shuffle_SC,", "shufle,", "Operation", "'shufle'", 4),
        (
            "Shuffle_SC,20511,10,5242880,524288,4,",
            "Shuffle_SC,20511,10,5242880,524288,0,",
            "Mappers",
            "0.0",
            4,
        ),
    ],
)
def test_bad_values_name_file_line_column_and_value(
    old: str, new: str, column: str, value: str, line: int
) -> None:
    with pytest.raises(InputError) as info:
        parse_phase_csv(PAPER_STYLE.replace(old, new), "bad.csv")
    message = str(info.value)
    assert message.startswith(f"bad.csv:{line}: {column}: ")
    assert f"(got {value})" in message
    assert info.value.field == column


def test_empty_and_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no data rows"):
        parse_phase_csv(PAPER_STYLE.splitlines()[0] + "\n", "empty.csv")
    with pytest.raises(InputError, match="cannot read"):
        load_phase_data([tmp_path / "absent.csv"])
