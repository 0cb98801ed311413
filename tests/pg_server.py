"""A real, throw-away PostgreSQL server for the tests: `initdb` in a temporary folder, then
`pg_ctl start` listening only on a unix socket inside that folder (no TCP port at all).

`initdb` refuses to run as root, so under root the data folder belongs to the `postgres`
user and the server binaries run through `runuser -u postgres --`. Binaries are looked up on
PATH, then in /usr/lib/postgresql/*/bin (Debian keeps them off PATH).
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
from pathlib import Path


def find_binaries() -> Path | None:
    """The folder holding `initdb` and `pg_ctl`, or None when PostgreSQL is not installed."""
    initdb = shutil.which("initdb")
    if initdb and shutil.which("pg_ctl"):
        return Path(os.path.realpath(initdb)).parent
    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if (Path(folder) / "initdb").exists() and (Path(folder) / "pg_ctl").exists():
            return Path(folder)
    return None


class PostgresServer:
    """Start with `start()`, connect with `dsn`, stop with `stop()` (the folder goes too)."""

    def __init__(self, bin_dir: Path, port: int = 5432):
        self.bin_dir, self.port = bin_dir, port
        self.folder = Path(tempfile.mkdtemp(prefix="quaestio-pg-"))
        self.data = self.folder / "data"
        self._as_postgres = os.geteuid() == 0

    @property
    def dsn(self) -> str:
        return f"host={self.folder} port={self.port} user=postgres dbname=postgres"

    def _run(self, *args: str, timeout: float = 60) -> None:
        command = [str(self.bin_dir / args[0]), *args[1:]]
        if self._as_postgres:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
        if done.returncode != 0:
            raise RuntimeError(f"{args[0]} failed ({done.returncode}): {done.stderr.strip()}")

    def start(self) -> PostgresServer:
        if self._as_postgres:
            shutil.chown(self.folder, "postgres")
        self._run(
            "initdb",
            "-D",
            str(self.data),
            "-A",
            "trust",
            "-U",
            "postgres",
            "-E",
            "UTF8",
            "--no-sync",
            "--locale=C",
        )
        # No TCP listener: the socket lives in the private temporary folder.
        options = (
            f"-c listen_addresses='' -k {self.folder} -p {self.port} -c fsync=off "
            f"-c synchronous_commit=off -c full_page_writes=off"
        )
        self._run(
            "pg_ctl",
            "-D",
            str(self.data),
            "-o",
            options,
            "-l",
            str(self.folder / "server.log"),
            "-w",
            "-t",
            "60",
            "start",
            timeout=90,
        )
        return self

    def stop(self) -> None:
        try:
            if (self.data / "postmaster.pid").exists():
                self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)
