"""schemathesis against the served OpenAPI spec: generated requests never get a 5xx."""

from __future__ import annotations

import pytest

schemathesis = pytest.importorskip("schemathesis")
pytest.importorskip("fastapi")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from serve_helpers import LiveServer  # noqa: E402

from quaestio.retrieval import build_index  # noqa: E402
from quaestio.serve import ServeConfig  # noqa: E402


@pytest.fixture(scope="module")
def live():
    index = build_index("examples/corpus", embedding_model=None)
    # A generous rate: the fuzzer sends hundreds of requests and must not see only 429s.
    with LiveServer(
        ServeConfig(
            index=index, rate_per_minute=1e6, burst=100_000, request_timeout=20, max_batch=16
        )
    ) as server:
        yield server


def test_no_generated_request_gets_a_server_error(live):
    # Driven by hand (one hypothesis run per operation) rather than by schemathesis' pytest
    # plugin, which does not load under this pytest.
    api = schemathesis.openapi.from_url(f"{live.url}/openapi.json")
    failures, calls = [], []
    for result in api.get_all_operations():
        operation = result.ok()
        if operation.path.endswith("satellites:reload"):
            continue  # admin-only, and each call re-validates every table (seconds)

        @given(case=operation.as_strategy())
        @settings(
            max_examples=8, deadline=None, database=None, suppress_health_check=list(HealthCheck)
        )
        def run(case):
            # run() is called in this iteration, so it sees this iteration's operation.
            label = operation.label  # noqa: B023
            response = case.call(base_url=live.url, timeout=30)
            calls.append(label)
            if response.status_code >= 500:
                failures.append(
                    (
                        label,
                        response.status_code,
                        response.text[:200],
                        case.as_curl_command(),
                    )
                )

        run()
    assert len(set(calls)) >= 7, sorted(set(calls))
    assert not failures, failures
