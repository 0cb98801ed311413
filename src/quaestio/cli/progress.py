"""The one progress bar of a long command: a total and an ETA on a terminal, nothing in
redirected output (where the command's own summary line says what was done)."""

from __future__ import annotations

import sys
from typing import Any


def progress_bar(total: int | None, *, unit: str, desc: str) -> Any | None:
    """A tqdm bar on stderr when it is a terminal, else None (callers then skip updates)."""
    if not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit=unit, desc=desc, file=sys.stderr)


class StageBar:
    """One bar through the stages of a library call, as its `progress(stage, done, total)`
    callback: a new stage resets the same bar to that stage's total (no second bar)."""

    def __init__(self, unit: str = "it"):
        self._bar = progress_bar(None, unit=unit, desc="reading")
        self._stage: str | None = None

    def __call__(self, stage: str, done: int, total: int) -> None:
        if self._bar is None:
            return
        if stage != self._stage:
            self._stage = stage
            self._bar.reset(total=total)
            self._bar.set_description(stage)
        self._bar.update(done - self._bar.n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()

    def __enter__(self) -> StageBar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
