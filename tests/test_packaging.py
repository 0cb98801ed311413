"""What an install gives: bundled data regenerates identically, imports stay light."""

import filecmp
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "src" / "quaestio" / "satellites" / "data"


@pytest.mark.skipif(
    importlib.util.find_spec("pycountry") is None or importlib.util.find_spec("babel") is None,
    reason="needs the 'generate' extra: pip install '.[generate]'",
)
def test_closed_sets_are_exactly_what_the_generator_writes(tmp_path):
    subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "generate_closed_sets.py"),
            "--out",
            str(tmp_path),
        ],
        check=True,
        capture_output=True,
    )
    written = sorted(p.name for p in tmp_path.glob("*.csv"))
    assert written == [
        "concept_keywords.countries.csv",
        "concept_keywords.currencies.csv",
        "concepts.countries.csv",
        "concepts.currencies.csv",
    ]
    for name in written:
        assert filecmp.cmp(tmp_path / name, DATA / name, shallow=False), (
            f"{name} differs from the generator's output: edit the script, not the file"
        )


def test_import_is_light():
    code = (
        "import sys, quaestio; "
        "heavy = [m for m in ('openai', 'torch', 'spellchecker', 'tqdm', 'click') "
        "if m in sys.modules]; print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_later_layers_are_importable_from_the_top_and_loaded_on_first_use():
    code = (
        "import sys, quaestio; before = 'quaestio.retrieval' in sys.modules; "
        "from quaestio import search, confirm, evaluate_answers, LLM; "
        "from quaestio.retrieval import search as s; from quaestio.confirm import confirm "
        "as c; print(before, search is s, confirm is c, "
        "set(quaestio.__all__) <= set(dir(quaestio)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True", "True", "True"]
    import quaestio

    with pytest.raises(AttributeError, match="no attribute 'serach'"):
        quaestio.serach  # noqa: B018


def test_prepare_builds_every_index(tiny_sats):
    from quaestio import prepare

    assert prepare(tiny_sats) is tiny_sats
    for key in ("dictionary_index", "deletion_index", "cue_rules", "anchor_rules"):
        assert key in tiny_sats._cache, key


def test_bundled_tables_ship_inside_the_package():
    from importlib import resources

    files = {p.name for p in (resources.files("quaestio.satellites") / "data").iterdir()}
    assert {"concepts.insurance.csv", "stopwords.csv", "defaults.csv"} <= files


def test_the_command_line_help_loads_no_data_engine():
    # `quaestio --help` and the registration of every command must not pay for pandas,
    # polars or pyarrow (about a second of start-up on this machine).
    code = (
        "import sys; from quaestio.cli import cli; "
        "from click.testing import CliRunner; CliRunner().invoke(cli, ['--help']); "
        "print([m for m in ('pandas', 'polars', 'pyarrow', 'regex', 'quaestio.analysis') "
        "if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_importing_a_subpackage_first_keeps_the_verb_of_the_same_name():
    code = (
        "import quaestio.confirm, quaestio.evaluate, quaestio; "
        "from quaestio import confirm, evaluate; "
        "print(callable(confirm), callable(evaluate), quaestio.types.__name__)"
    )
    out = subprocess.run(
        [sys.executable, "-W", "error::ImportWarning", "-c", code],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.split() == ["True", "True", "quaestio.types"]


def test_the_parse_layer_never_imports_the_llm_layer():
    import re

    for path in sorted((ROOT / "src" / "quaestio" / "analysis").glob("*.py")):
        text = path.read_text()
        assert not re.search(r"from \.\.llm|from quaestio\.llm|import quaestio\.llm", text), (
            f"{path.name} imports the LLM layer: take it through quaestio.refiners instead"
        )


def test_any_refiner_the_caller_passes_finishes_the_rows():
    from quaestio.analysis import parse_question, parse_questions

    class Upper:
        def parse_draft(self, draft, started, finish):
            record = finish(draft, started)
            return {**record, "corrected_question": record["original_question"].upper()}

        def parse_drafts(self, items, finish, *, progress=None):
            return [self.parse_draft(d, s, finish) for d, s in items]

    assert (
        parse_question("what is the premium?", llm=Upper()).corrected_question
        == "WHAT IS THE PREMIUM?"
    )
    batch = parse_questions(["a premium", "a limit"], llm=Upper(), as_="polars")
    assert batch["corrected_question"].to_list() == ["A PREMIUM", "A LIMIT"]
    with pytest.raises(TypeError, match="parse_draft"):
        parse_question("what is the premium?", llm=42)
