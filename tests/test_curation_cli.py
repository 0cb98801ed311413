"""The curation loop from the command line: report, satellites diff/load, admit."""

from __future__ import annotations

import shutil

import polars as pl
from click.testing import CliRunner

from quaestio.cli import cli


def test_report_on_a_question_file(tmp_path, sat_folder):
    questions = tmp_path / "q.csv"
    questions.write_text('question\nWhat is the annual premium?\n"Hello there, how are you?"\n')
    out = CliRunner().invoke(
        cli,
        ["report", str(questions), "--satellites", str(sat_folder), "-o", str(tmp_path / "rep")],
    )
    assert out.exit_code == 0, out.output
    assert "coverage unmatched (1)" in out.output and "Hello there" in out.output
    never = pl.read_csv(tmp_path / "rep" / "coverage_never_hit.csv")
    assert "sub_limit" in never["concept"].to_list()


def test_report_needs_an_input():
    out = CliRunner().invoke(cli, ["report"])
    assert out.exit_code == 2 and "QUESTIONS file, a --corpus" in out.output


def test_admit_reports_bad_rows_and_writes_nothing(tmp_path, sat_folder):
    review = tmp_path / "candidates.csv"
    review.write_text(
        "decision,concept,language,keyword,weight\n"
        "accept,premium,en,insurance premium,0.9\naccept,nope,en,x y,0.9\n"
    )
    out = CliRunner().invoke(cli, ["admit", str(review), "--satellites", str(sat_folder)])
    assert out.exit_code == 2
    assert f"{review} row 3 (concept='nope'): unknown concept" in out.output
    assert "Nothing was written." in out.output
    assert not (sat_folder / "concept_keywords.discovery.csv").exists()
    review.write_text(
        "decision,concept,language,keyword,weight\n"
        "accept,premium,en,insurance premium,0.9\n,premium,en,later,0.9\n"
    )
    out = CliRunner().invoke(
        cli, ["admit", str(review), "--satellites", str(sat_folder), "--by", "ana"]
    )
    assert out.exit_code == 0, out.output
    assert out.output.startswith("1 admitted, 0 rejected, 1 pending")


def test_satellites_load_and_diff(tmp_path, sat_folder):
    old = tmp_path / "old"
    shutil.copytree(sat_folder, old)
    kw = tmp_path / "kw.csv"
    kw.write_text("concept,language,keyword\npremium,en,policy premium\n")
    out = CliRunner().invoke(
        cli,
        [
            "satellites",
            "load",
            str(sat_folder),
            "--name",
            "extra",
            "--keywords",
            str(kw),
            "--by",
            "ana",
        ],
    )
    assert out.exit_code == 0, out.output
    assert (sat_folder / "concept_keywords.extra.csv").exists()
    questions = tmp_path / "q.csv"
    questions.write_text("question\nWhat is the policy premium?\nHello\n")
    out = CliRunner().invoke(
        cli,
        [
            "satellites",
            "diff",
            str(old),
            str(sat_folder),
            "--questions",
            str(questions),
            "-o",
            str(tmp_path / "d.csv"),
        ],
    )
    assert out.exit_code == 0, out.output
    assert "premium / en / policy premium" in out.output and "added" in out.output
    changes = pl.read_csv(tmp_path / "d.csv")
    assert set(changes["question_id"]) == {"q0"} and "keywords" in set(changes["column"])
