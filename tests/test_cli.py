import json

import polars as pl
import pytest
from click.testing import CliRunner

from quaestio.cli import cli


def _commands(group, prefix=()):
    for name, command in group.commands.items():
        yield prefix + (name,), command
        if hasattr(command, "commands"):
            yield from _commands(command, prefix + (name,))


ALL = list(_commands(cli))


@pytest.mark.parametrize("path, command", ALL, ids=[" ".join(p) for p, _ in ALL])
def test_every_command_has_help(path, command):
    assert command.help, f"{' '.join(path)} is missing its help"
    result = CliRunner().invoke(cli, [*path, "--help"])
    assert result.exit_code == 0 and "Usage:" in result.output


def test_parse_prints_a_summary_and_json(sat_folder):
    runner = CliRunner()
    args = ["parse", "Whats the anual premuim in Germany?", "--satellites", str(sat_folder)]
    out = runner.invoke(cli, args)
    assert out.exit_code == 0, out.output
    assert "concepts:    premium, country_de" in out.output
    assert "corrected:   Whats the annual premium in Germany?" in out.output
    row = json.loads(runner.invoke(cli, args + ["--json"]).output)
    assert row["concepts"] == ["premium", "country_de"]
    assert row["provenance"]["parser_mode"] == "rules"


def test_parse_empty_question_fails_on_stderr():
    result = CliRunner().invoke(cli, ["parse", "  "])
    assert result.exit_code == 2
    assert "Error: " in result.output and "empty" in result.output


@pytest.mark.parametrize(
    "suffix_in, suffix_out", [("csv", "parquet"), ("jsonl", "csv"), ("parquet", "jsonl")]
)
def test_batch_formats_keep_one_row_per_question(tmp_path, sat_folder, suffix_in, suffix_out):
    frame = pl.DataFrame(
        {"id": ["a1", "a2", "a3"], "question": ["premium in Germany?", "", "limit of indemnity?"]}
    )
    src, dst = tmp_path / f"in.{suffix_in}", tmp_path / f"out.{suffix_out}"
    {"csv": frame.write_csv, "jsonl": frame.write_ndjson, "parquet": frame.write_parquet}[
        suffix_in
    ](src)
    result = CliRunner().invoke(
        cli,
        [
            "batch",
            str(src),
            "-o",
            str(dst),
            "--id-column",
            "id",
            "--satellites",
            str(sat_folder),
            "--chunk-size",
            "2",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "3 questions" in result.output and "1 with an error_code" in result.output
    out = {
        "csv": lambda p: pl.read_csv(p, infer_schema=False),
        "jsonl": pl.read_ndjson,
        "parquet": pl.read_parquet,
    }[suffix_out](dst)
    assert out["question_id"].to_list() == ["a1", "a2", "a3"]
    assert out["error_code"].to_list() == [None, "empty_question", None]
    concepts = out["concepts"].to_list()[0]
    assert (json.loads(concepts) if isinstance(concepts, str) else list(concepts)) == [
        "premium",
        "country_de",
    ]


def test_batch_without_id_column_numbers_rows_across_chunks(tmp_path, sat_folder):
    src, dst = tmp_path / "in.csv", tmp_path / "out.parquet"
    pl.DataFrame({"question": [f"premium {i}" for i in range(5)]}).write_csv(src)
    result = CliRunner().invoke(
        cli,
        ["batch", str(src), "-o", str(dst), "--chunk-size", "2", "--satellites", str(sat_folder)],
    )
    assert result.exit_code == 0, result.output
    assert pl.read_parquet(dst)["question_id"].to_list() == ["0", "1", "2", "3", "4"]


def test_batch_rejects_unknown_formats_and_columns(tmp_path):
    src = tmp_path / "in.csv"
    pl.DataFrame({"text": ["a"]}).write_csv(src)
    result = CliRunner().invoke(cli, ["batch", str(src), "-o", str(tmp_path / "out.xlsx")])
    assert result.exit_code == 2 and ".parquet" in result.output
    result = CliRunner().invoke(cli, ["batch", str(src), "-o", str(tmp_path / "o.csv")])
    assert result.exit_code == 2 and "no column 'question'" in result.output


def test_satellites_validate_ok_and_broken(sat_folder):
    runner = CliRunner()
    ok = runner.invoke(cli, ["satellites", "validate", str(sat_folder)])
    from quaestio.satellites import TABLES

    assert ok.exit_code == 0 and ok.output.startswith(f"OK: {len(TABLES)} tables"), ok.output
    (sat_folder / "anchors.csv").write_text("anchor_id,pattern\nbad,(x\nworse,[\n")
    broken = runner.invoke(cli, ["satellites", "validate", str(sat_folder)])
    assert broken.exit_code == 2
    assert "row 2 (pattern='(x')" in broken.output and "row 3 (pattern='[')" in broken.output


def test_satellites_stats_json(sat_folder):
    result = CliRunner().invoke(cli, ["satellites", "stats", str(sat_folder), "--json"])
    figures = json.loads(result.output)
    assert figures["tables"]["concepts"] == 6
    assert figures["keywords_by_language"]["*"] == 2


def test_satellites_export_round_trips(tmp_path):
    result = CliRunner().invoke(cli, ["satellites", "export", str(tmp_path / "mine")])
    assert result.exit_code == 0
    again = CliRunner().invoke(cli, ["satellites", "validate", str(tmp_path / "mine")])
    assert again.exit_code == 0, again.output
