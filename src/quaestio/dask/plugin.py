"""What every worker holds once: the satellites (prepared) and the index, with their versions.

`QuaestioState` is a `distributed.WorkerPlugin`: registering it sends its payload to each
worker once (and to workers that join later), not with every task. `setup` checks on the
worker that its quaestio, the satellites' content hash and the index manifest are the ones
the client meant, and fails the registration otherwise. Without a distributed client (the
threads or synchronous scheduler) the same state lives in this process.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any, cast

from ..errors import QuaestioError

if TYPE_CHECKING:
    from ..satellites import Satellites

_LOCAL: dict[str, QuaestioState] = {}


class WorkerStateError(QuaestioError, RuntimeError):
    """A worker's quaestio, satellites or index differ from the client's."""


class PartitionFailed(QuaestioError, RuntimeError):
    """A partition failed after its retries; `partition` is its number in the input."""

    def __init__(self, step: str, partition: int, attempts: int, cause: BaseException | str):
        self.step, self.partition, self.attempts = step, partition, attempts
        self.cause = cause if isinstance(cause, str) else f"{type(cause).__name__}: {cause}"
        super().__init__(
            f"{step}: partition {partition} failed after {attempts} attempt(s): {self.cause}"
        )

    def __reduce__(self):  # travels from the worker to the client intact
        return (PartitionFailed, (self.step, self.partition, self.attempts, self.cause))


def manifest_digest(manifest: dict) -> str:
    return hashlib.sha256(json.dumps(manifest, sort_keys=True, default=str).encode()).hexdigest()[
        :12
    ]


class QuaestioState:
    """The payload a worker keeps: satellites tables, an index (folder, tables or DSN).

    Args:
        satellites: The `Satellites` to parse and confirm with.
        index: None, an index folder (opened on the worker: it must see the same path), an
            `Index` (its tables travel with the plugin) or a PostgreSQL DSN.
    """

    def __init__(self, satellites, index: Any = None):
        from .. import __version__
        from ..retrieval.index import Index

        self.tables = dict(satellites.tables)  # not the compiled artefacts: rebuilt there
        self.origins = dict(satellites.origins)
        self.expected = {"quaestio": __version__, "satellites": satellites.version}
        self.index_source: Any = index
        if isinstance(index, Index):
            self.index_source = (index.documents, index.chunks, index.manifest)
            self.expected["index"] = manifest_digest(index.manifest)
        elif index is not None and not _is_dsn(index):
            from ..retrieval import open_index

            self.index_source = str(index)
            self.expected["index"] = manifest_digest(open_index(index).manifest)
        self.key = (
            "quaestio-"
            + hashlib.sha256(
                json.dumps([self.expected, str(index) if isinstance(index, str) else ""]).encode()
            ).hexdigest()[:12]
        )
        self.satellites: Satellites | None = None  # prepared in setup()
        self.index: Any = None  # an Index or a PostgresIndex, opened in setup()

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k not in ("satellites", "index")}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state, satellites=None, index=None)

    def setup(self, worker=None) -> None:
        """Build the satellites' indexes and open the index, then check the versions."""
        from .. import __version__
        from ..analysis import prepare
        from ..satellites import Satellites

        sats = Satellites(tables=self.tables, origins=self.origins)
        found = {"quaestio": __version__, "satellites": sats.version}
        self.index = self._open_index()
        if "index" in self.expected:
            found["index"] = manifest_digest(self.index.manifest)
        wrong = {k: (v, found.get(k)) for k, v in self.expected.items() if found.get(k) != v}
        if wrong:
            raise WorkerStateError(
                "worker state differs from the client's: "
                + ", ".join(f"{k} {got!r} instead of {want!r}" for k, (want, got) in wrong.items())
            )
        self.satellites = prepare(sats)

    def teardown(self, worker=None) -> None:
        if self.index is not None and hasattr(self.index, "close"):
            self.index.close()

    def _open_index(self):
        source = self.index_source
        if source is None:
            return None
        if isinstance(source, tuple):
            from ..retrieval.index import Index

            return Index(*source)
        if _is_dsn(source):
            import warnings

            from ..retrieval.postgres import PostgresIndex

            with warnings.catch_warnings():  # said once by the client, not by every worker
                warnings.simplefilter("ignore", RuntimeWarning)
                return PostgresIndex(source, pool_size=2)
        from ..retrieval import open_index

        return open_index(source)


def _is_dsn(value: Any) -> bool:
    from ..retrieval.postgres import is_dsn

    return is_dsn(value)


def install(state: QuaestioState, client) -> str:
    """Send `state` to every worker of `client` (or keep it here without one); its key."""
    if client is None:
        if state.key not in _LOCAL:
            state.setup()
            _LOCAL[state.key] = state
        return state.key
    sent = client.__dict__.setdefault("_quaestio_states", set())
    if state.key in sent:  # the same satellites and index: already on every worker
        return state.key
    plugin = __getattr__("QuaestioPlugin")
    shipped = plugin.__new__(plugin)
    shipped.__setstate__(state.__getstate__())
    client.register_plugin(shipped, name=state.key)
    sent.add(state.key)
    return state.key


def state_for(key: str) -> QuaestioState:
    """The state installed under `key`, on this worker or in this process."""
    try:
        from distributed import get_worker

        # Plugins are installed under a quaestio key only by `install` (a QuaestioState).
        return cast(QuaestioState, get_worker().plugins[key])
    except (ImportError, ValueError, KeyError):
        if key in _LOCAL:
            return _LOCAL[key]
        raise WorkerStateError(
            f"no quaestio state {key!r} on this worker; install it first "
            f"(quaestio.dask functions do) "
        ) from None


def __getattr__(name: str):
    # The WorkerPlugin subclass is made on first use (here and on each worker, where
    # unpickling looks it up by name), so importing this module never imports distributed.
    if name == "QuaestioPlugin":
        from distributed.diagnostics.plugin import WorkerPlugin

        cls = type("QuaestioPlugin", (QuaestioState, WorkerPlugin), {"__module__": __name__})
        globals()[name] = cls
        return cls
    raise AttributeError(name)
