from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from quaestio import load_satellites

FIXTURES = Path(__file__).parent / "fixtures"
SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


@pytest.fixture(scope="session")
def tiny_sats():
    """About twenty keyword rows: premium/prime ambiguity, limits, Germany and its codes."""
    return load_satellites(FIXTURES / "satellites")


@pytest.fixture(scope="session")
def bundled():
    from quaestio.satellites import bundled_satellites

    return bundled_satellites()


@pytest.fixture
def sat_folder(tmp_path):
    """A writable copy of the tiny satellite folder, for tests that break it."""
    folder = tmp_path / "sats"
    shutil.copytree(FIXTURES / "satellites", folder)
    return folder
