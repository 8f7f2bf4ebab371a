"""Shared test setup."""
import pytest


@pytest.fixture(autouse=True)
def _own_result_cache(tmp_path_factory, monkeypatch):
    """Each test gets an empty result cache of its own (also for the pipelint processes it
    starts), so no test replays another's findings and none writes into the working tree."""
    monkeypatch.setenv("PIPELINT_CACHE_DIR", str(tmp_path_factory.mktemp("pipelint-cache")))
