"""Issue 13, item 9: one load lists every problem, each at its file and line."""

from __future__ import annotations

import pytest

from quaestio import SatelliteError, load_satellites

HEADER = "concept,language,keyword,keyword_priority,weight,match,status,source,added_by,added_at"


def failures(folder) -> list[dict]:
    with pytest.raises(SatelliteError) as err:
        load_satellites(folder)
    return err.value.failure_cases


def split_file(folder, body: str, name: str = "concept_keywords.extra.csv"):
    (folder / name).write_bytes(body.encode("utf-8") if isinstance(body, str) else body)
    return str(folder / name)


def test_links_are_checked_even_when_other_rows_are_bad(sat_folder):
    src = split_file(
        sat_folder,
        f"{HEADER}\n"
        "premium,en,yearly premium,secondary,1.5,fuzzy,,,,\n"
        "no_such_concept,en,ghost,secondary,0.5,fuzzy,,,,\n",
    )
    cases = {(c["source"], c["row"], c["column"]): c["reason"] for c in failures(sat_folder)}
    assert cases[(src, 2, "weight")].startswith("must be a number")
    assert cases[(src, 3, "concept")].startswith("unknown concept")


def test_an_extra_column_is_blamed_on_its_own_file(sat_folder):
    src = split_file(
        sat_folder,
        f"{HEADER},notes\npremium,en,yearly premium,secondary,0.5,fuzzy,,,,,hello\n",
        "concept_keywords.zz.csv",
    )
    (case,) = failures(sat_folder)
    assert (case["source"], case["column"]) == (src, "notes")
    assert case["reason"].startswith("unknown column")


def test_a_missing_column_in_a_split_file_is_one_line(sat_folder):
    src = split_file(
        sat_folder,
        "concept,language,keyword\n" + "".join(f"premium,en,variant {n}\n" for n in range(30)),
    )
    cases = failures(sat_folder)
    assert [(c["source"], c["column"], c["reason"]) for c in cases] == [
        (src, "weight", "required column is missing")
    ]


def test_a_ragged_row_is_named_by_its_line(sat_folder):
    src = split_file(
        sat_folder,
        f"{HEADER}\npremium,en,yearly premium,secondary,0.5,"
        f"fuzzy,,,,\npremium,en,a, b,secondary,0.5,fuzzy,,,,\n",
    )
    (case,) = failures(sat_folder)
    assert (case["source"], case["row"]) == (src, 3)
    assert "11 fields where the header has 10" in case["reason"]


def test_an_unclosed_quote_is_named_by_file_and_line(sat_folder):
    src = split_file(
        sat_folder,
        f"{HEADER}\npremium,en,yearly premium,secondary,0.5,fuzzy,,,,"
        f'\npremium,en,"open quote,secondary,0.5,fuzzy,,,,\n'
        f"premium,en,third,secondary,0.5,fuzzy,,,,\n",
    )
    (case,) = failures(sat_folder)
    assert (case["source"], case["row"]) == (src, 3)
    assert "never closed" in case["reason"] and "polars" not in case["reason"].lower()


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_a_utf16_file_loads_with_or_without_its_bom(sat_folder, encoding):
    body = f"{HEADER}\npremium,en,yearly prämie,secondary,0.5,fuzzy,,,,\n"
    split_file(sat_folder, body.encode(encoding))
    sats = load_satellites(sat_folder)
    assert "yearly prämie" in sats.concept_keywords["keyword"].to_list()


def test_a_file_that_is_not_utf8_is_named_by_its_line(sat_folder):
    body = (
        f"{HEADER}\npremium,en,yearly,secondary,0.5,fuzzy,,,,\npremium,fr,prime annuelle "
        f"été,secondary,0.5,fuzzy,,,,\n"
    )
    src = split_file(sat_folder, body.encode("cp1252"))
    (case,) = failures(sat_folder)
    assert (case["source"], case["row"]) == (src, 3) and "not UTF-8" in case["reason"]


def test_rows_after_a_multiline_value_keep_their_line_numbers(sat_folder):
    src = split_file(
        sat_folder,
        f'{HEADER}\npremium,en,"two\nlines",secondary,0.5,fuzzy,,,,\n'
        f"premium,en,bad,secondary,9,fuzzy,,,,\n",
    )
    (case,) = failures(sat_folder)
    assert (case["source"], case["row"], case["column"]) == (src, 4, "weight")
