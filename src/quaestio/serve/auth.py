"""API keys: stored hashed, compared in constant time, each with a role.

A key file holds one line per key, `sha256:<hex digest> <role> <name>` (`#` starts a
comment); `QUAESTIO_API_KEYS` may hold the same lines, separated by newlines or `;`. The
plain key is never stored, logged or echoed: only its digest and the key's name are.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from ..errors import QuaestioError

# Ordered: each role may do what the roles before it may.
ROLES = ("reader", "analyst", "admin")
ENV_KEYS = "QUAESTIO_API_KEYS"


def is_loopback(host: str | None) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host or "").is_loopback
    except ValueError:
        return False


class KeyFileError(QuaestioError, ValueError):
    """A line of the key file that is not `sha256:<hex> <role> <name>`."""


@dataclass(frozen=True)
class Principal:
    """Who is calling: the key's name (what logs show) and its role."""

    name: str
    role: str

    def may(self, role: str) -> bool:
        return ROLES.index(self.role) >= ROLES.index(role)


def hash_key(key: str) -> str:
    return "sha256:" + hashlib.sha256(key.encode()).hexdigest()


def new_key_line(role: str, name: str) -> tuple[str, str]:
    """A fresh random key and the key-file line that admits it."""
    if role not in ROLES:
        raise KeyFileError(f"unknown role {role!r}; roles: {', '.join(ROLES)}")
    key = "qk_" + secrets.token_urlsafe(24)
    return key, f"{hash_key(key)} {role} {name}"


class KeyRing:
    """The configured keys; empty means "loopback clients only, no key needed"."""

    def __init__(self, entries: list[tuple[bytes, Principal]]):
        self._entries = entries

    @classmethod
    def load(cls, path: str | Path | None = None, *, env: str | None = None) -> KeyRing:
        text = Path(path).read_text() if path is not None else ""
        env_text = os.environ.get(ENV_KEYS, "") if env is None else env
        lines = text.splitlines() + env_text.replace(";", "\n").splitlines()
        source = str(path) if path is not None else ENV_KEYS
        return cls(
            [
                _entry(line, n, source)
                for n, line in enumerate(lines, 1)
                if line.split("#")[0].strip()
            ]
        )

    def __bool__(self) -> bool:
        return bool(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def identify(self, presented: str | None) -> Principal | None:
        """The principal of a presented key, or None; every entry is compared, in constant
        time, so neither the timing nor the order of the file tells which digest matched."""
        if not presented:
            return None
        digest = hashlib.sha256(presented.encode()).digest()
        found = None
        for stored, principal in self._entries:
            if hmac.compare_digest(stored, digest):
                found = principal
        return found


def _entry(line: str, number: int, source: str) -> tuple[bytes, Principal]:
    parts = line.split("#")[0].split()
    if len(parts) != 3 or not parts[0].startswith("sha256:"):
        raise KeyFileError(
            f"{source} line {number}: expected 'sha256:<hex> <role> <name>', "
            f"got {len(parts)} field(s)"
        )
    digest, role, name = parts
    try:
        raw = bytes.fromhex(digest[len("sha256:") :])
    except ValueError:
        raw = b""
    if len(raw) != 32:
        raise KeyFileError(f"{source} line {number}: the digest is not 64 hex digits")
    if role not in ROLES:
        raise KeyFileError(
            f"{source} line {number}: unknown role {role!r}; roles: {', '.join(ROLES)}"
        )
    return raw, Principal(name, role)


def presented_key(headers) -> str | None:
    """The key from `Authorization: Bearer <key>` or `X-API-Key: <key>`."""
    auth = headers.get("authorization") or ""
    if auth[:7].lower() == "bearer ":
        return auth[7:].strip()
    return headers.get("x-api-key")
