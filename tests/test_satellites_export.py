"""`quaestio satellites export` is a starting point an analyst can keep working on: the bundled
split survives, nothing is overwritten, and a closed set can then be replaced on its own."""

from __future__ import annotations

from importlib import resources

from click.testing import CliRunner

from quaestio import load_satellites
from quaestio.cli import cli


def _bundled_names() -> set[str]:
    data = resources.files("quaestio.satellites") / "data"
    return {f.name for f in data.iterdir() if f.name.endswith(".csv")}


def test_export_keeps_the_bundled_files_one_for_one(tmp_path):
    out = tmp_path / "my_tables"
    result = CliRunner().invoke(cli, ["satellites", "export", str(out)])
    assert result.exit_code == 0, result.output
    assert {p.name for p in out.iterdir()} == _bundled_names()
    assert load_satellites(out).version == load_satellites().version


def test_export_never_overwrites_an_existing_file(tmp_path):
    out = tmp_path / "my_tables"
    out.mkdir()
    (out / "cues.csv").write_text("mine\n")
    result = CliRunner().invoke(cli, ["satellites", "export", str(out)])
    assert result.exit_code != 0
    assert "cues.csv" in result.output and "nothing was written" in result.output
    assert (out / "cues.csv").read_text() == "mine\n"
    assert [p.name for p in out.iterdir()] == ["cues.csv"]


def test_a_closed_set_loads_again_into_an_exported_folder(tmp_path):
    out = tmp_path / "my_tables"
    runner = CliRunner()
    assert runner.invoke(cli, ["satellites", "export", str(out)]).exit_code == 0
    result = runner.invoke(cli, ["satellites", "load", str(out), "--bundled", "currencies"])
    assert result.exit_code == 0, result.output
    assert "concept_keywords.currencies.csv" in result.output
    assert load_satellites(out).version == load_satellites().version
