"""Settings: read once from the environment, typed, checked, and documented as they are."""

from __future__ import annotations

from pathlib import Path

import pytest

from store.configuration import markdown
from store.settings import SettingError, Settings

ROOT = Path(__file__).resolve().parents[2]


def test_every_setting_has_a_default_and_reads_its_variable():
    default = Settings.from_env({})
    assert default.time.puzzle_time_limit == 120.0 and default.lanes.chunk_max == 1000
    given = Settings.from_env({"PUZZLE_TIME_LIMIT": "2.5", "CHUNK_MAX": "7", "REDIS_URL": "redis://r/1",
                               "MAX_PUZZLE_BYTES": "sudoku=100", "OPTION_LIMITS": "nqueens.probes=5"})
    assert given.time.puzzle_time_limit == 2.5 and given.lanes.chunk_max == 7
    assert given.connections.redis_url == "redis://r/1"
    assert dict(given.limits.max_puzzle_bytes) == {"default": 20000, "sudoku": 100}
    assert dict(given.limits.option_limits) == {"nqueens.probes": 5.0}


def test_derived_defaults_follow_what_they_derive_from():
    settings = Settings.from_env({"TASK_QUEUE": "q", "PUZZLE_TIME_LIMIT": "10", "CHUNK_MAX": "3",
                                  "HARD_TIME_GRACE": "1"})
    assert settings.lanes.queues == ("q", "q.dear")
    assert settings.visibility_timeout == 2 * (10 * 3 + 1)
    assert Settings.from_env({"VISIBILITY_TIMEOUT": "99"}).visibility_timeout == 99
    pooled = Settings.from_env({"DATABASE_URL": "postgresql+psycopg://u@pgbouncer:6432/d",
                                "DATABASE_POOLING": "transaction"}).connections
    assert pooled.direct_url == pooled.database_url and pooled.transaction_pooled
    direct = Settings.from_env({"DIRECT_DATABASE_URL": "postgresql+psycopg://u@postgres/d"}).connections
    assert direct.direct_url == "postgresql+psycopg://u@postgres/d" and not direct.transaction_pooled


@pytest.mark.parametrize(("env", "named"), [
    ({"PUZZLE_TIME_LIMIT": "soon"}, "PUZZLE_TIME_LIMIT"),
    ({"CHUNK_MAX": "0"}, "CHUNK_MAX"),
    ({"MAX_PUZZLE_BYTES": "sudoku"}, "MAX_PUZZLE_BYTES"),
    ({"LOG_FORMAT": "xml"}, "LOG_FORMAT"),
    ({"DATABASE_POOLING": "session"}, "DATABASE_POOLING"),
])
def test_a_bad_value_stops_the_start_naming_its_variable(env, named):
    with pytest.raises(SettingError, match=named):
        Settings.from_env(env)


def test_overrides_are_typed_values_by_variable_name():
    settings = Settings.from_env({}, PUZZLE_TIME_LIMIT=0.3, REDIS_URL=None)
    assert settings.time.puzzle_time_limit == 0.3 and settings.connections.redis_url is None
    assert settings.replace(MAX_ATTEMPTS=5).recovery.max_attempts == 5
    with pytest.raises(SettingError, match="NO_SUCH"):
        settings.replace(NO_SUCH=1)
    with pytest.raises(SettingError, match="MAX_ATTEMPTS"):
        settings.replace(MAX_ATTEMPTS=0)


def test_the_time_budget_owns_the_lease_and_the_task_limits():
    budget = Settings.from_env({"PUZZLE_TIME_LIMIT": "10", "HARD_TIME_GRACE": "2"}).time
    assert budget.lease().total_seconds() == 14
    assert budget.task_limits(3) == (31.0, 33.0)


def test_the_configuration_page_is_generated_from_the_settings():
    page = (ROOT / "docs" / "configuration.md").read_text()
    assert page == markdown(), "run: python -m store.configuration > docs/configuration.md"


def test_a_secret_is_read_from_the_file_its_name_file_variable_names(tmp_path):
    secret = tmp_path / "api_tokens"
    secret.write_text("alice:s3cret\n")
    assert Settings.from_env({"API_TOKENS_FILE": str(secret)}).access.api_tokens == "alice:s3cret"
    given = Settings.from_env({"API_TOKENS_FILE": str(secret), "API_TOKENS": "bob:x"})
    assert given.access.api_tokens == "bob:x"
    with pytest.raises(SettingError, match="METRICS_TOKEN_FILE"):
        Settings.from_env({"METRICS_TOKEN_FILE": str(tmp_path / "missing")})
