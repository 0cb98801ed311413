"""A table set that loaded cleanly is kept for the next process (`$QUAESTIO_CACHE`), under a
name that hashes every file read: the kept tables are the loaded ones, value for value and
type for type; any change of a file, a damaged kept file, or a set with problems loads from
the files again."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from quaestio import load_satellites
from quaestio.errors import SatelliteError
from quaestio.satellites import TABLES

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("QUAESTIO_CACHE", str(folder))
    monkeypatch.delenv("QUAESTIO_PATTERN_CACHE", raising=False)
    return folder


def _same(one, two) -> None:
    for name in TABLES:
        assert one.tables[name].schema == two.tables[name].schema, name
        assert one.tables[name].equals(two.tables[name]), name
    assert dict(one.origins) == dict(two.origins)


def test_the_kept_tables_are_the_loaded_ones(cache, monkeypatch):
    first = load_satellites()
    (kept,) = cache.glob("satellites-*.marshal")
    import quaestio.satellites as loader

    def no_validation(*args, **kwargs):
        raise AssertionError("a kept set is not validated again")

    monkeypatch.setattr(loader, "validate_table", no_validation)
    second = load_satellites()
    _same(first, second)
    assert second.version == first.version
    assert kept.stat().st_size > 1000


def test_a_changed_file_is_a_new_set(cache, tmp_path):
    folder = tmp_path / "sats"
    shutil.copytree(ROOT / "tests" / "fixtures" / "satellites", folder)
    load_satellites(folder)
    names = {p.name for p in cache.glob("satellites-*.marshal")}
    stopwords = folder / "stopwords.csv"
    stopwords.write_text(
        stopwords.read_text(encoding="utf-8") + "en,zzyzx,function\n", encoding="utf-8"
    )
    changed = load_satellites(folder)
    assert "zzyzx" in changed.tables["stopwords"]["word"].to_list()
    assert len({p.name for p in cache.glob("satellites-*.marshal")} - names) == 1


@pytest.mark.parametrize("damage", [b"", b"\x00" * 40, "half"])
def test_a_damaged_kept_file_loads_from_the_files(cache, damage):
    first = load_satellites()
    (kept,) = cache.glob("satellites-*.marshal")
    whole = kept.read_bytes()
    kept.write_bytes(whole[: len(whole) // 2] if damage == "half" else damage)
    _same(first, load_satellites())
    assert kept.read_bytes() == whole  # rewritten


def test_a_set_with_problems_is_never_kept(cache, tmp_path):
    folder = tmp_path / "sats"
    shutil.copytree(ROOT / "tests" / "fixtures" / "satellites", folder)
    (folder / "defaults.csv").write_text("key,value\nfuzzy_min_length,many\n", encoding="utf-8")
    for _ in range(2):  # reported in full every time
        with pytest.raises(SatelliteError, match="fuzzy_min_length"):
            load_satellites(folder)
    assert not [p for p in cache.glob("satellites-*.marshal") if p.stat().st_size]


def test_extra_rows_are_not_kept(cache):
    import polars as pl

    load_satellites(extra={"stopwords": pl.DataFrame({"language": ["en"], "word": ["zzyzx"]})})
    assert not list(cache.glob("satellites-*.marshal"))


def test_the_cache_keeps_only_the_latest_sets(cache, tmp_path):
    # Each edit of an analyst's folder is a new set: the folder must not grow with each one.
    from quaestio.satellites import _KEPT_SETS

    folder = tmp_path / "sats"
    shutil.copytree(ROOT / "tests" / "fixtures" / "satellites", folder)
    stopwords = folder / "stopwords.csv"
    base = stopwords.read_text(encoding="utf-8")
    for n in range(_KEPT_SETS + 3):
        stopwords.write_text(base + f"en,zzyzx{n},function\n", encoding="utf-8")
        load_satellites(folder)
        newest = max(cache.glob("satellites-*.marshal"), key=lambda p: p.stat().st_mtime_ns)
    assert len(list(cache.glob("satellites-*.marshal"))) == _KEPT_SETS
    assert newest.exists()
    (cache / "notes.txt").write_text("not ours", encoding="utf-8")
    stopwords.write_text(base, encoding="utf-8")
    load_satellites(folder)
    assert (cache / "notes.txt").exists()  # only the loader's own files are pruned
