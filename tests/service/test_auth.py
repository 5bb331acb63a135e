"""Tokens (service.auth): API_TOKENS's forms, names checked at start, owners are names, /metrics's
own token, and the command that makes digests (issue 12, failures 5, 6 and 13)."""

from __future__ import annotations

import hashlib
import hmac
import io

import pytest
from sqlalchemy import select

from service import auth, create_app, tokens
from store.models import Base, Job
from store.settings import Settings
from tests.service.conftest import RecordingPublisher
from tests.service.test_api import submit
from tests.services import fresh_postgres

TOKEN = "Zq3-alice-secret-token"
DIGEST = hashlib.sha256(TOKEN.encode()).hexdigest()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def owners(app) -> list[str]:
    with app.extensions["sessions"]() as s:
        return list(s.scalars(select(Job.owner)))


def test_a_name_as_long_as_the_owner_column_works(make_app, toy):
    name = "n" * 64
    app = make_app(API_TOKENS=f"{name}:{TOKEN}")
    assert submit(app.test_client(), headers=bearer(TOKEN)).status_code == 202
    assert owners(app) == [name]


@pytest.mark.integration
def test_the_longest_name_is_stored_on_postgresql(tmp_path, toy):
    # SQLite lets a VARCHAR(64) hold more; PostgreSQL refuses, which made every POST a 500.
    with fresh_postgres() as url:
        app = create_app(Settings.from_env(DATABASE_URL=url, BROKER_DIR=str(tmp_path / "broker"),
                                           REDIS_URL=None, RATE_LIMIT="", READ_RATE_LIMIT="",
                                           API_TOKENS=f"{'n' * 64}:{TOKEN}"))
        try:
            Base.metadata.create_all(app.extensions["engine"])
            app.extensions["publisher"] = RecordingPublisher()
            assert submit(app.test_client(), headers=bearer(TOKEN)).status_code == 202
            assert owners(app) == ["n" * 64]
        finally:
            app.extensions["engine"].dispose()


@pytest.mark.parametrize("entry", ["n" * 65 + ":Sekr1t", "x" * 84, "alice bob:Sekr1t", ":Sekr1t",
                                   "al/ice:Sekr1t"])
def test_names_that_cannot_be_stored_stop_the_service_at_start(make_app, entry):
    # Before: the app started, and every POST of that client was a 500 (the owner column is 64 wide).
    with pytest.raises(auth.TokenSettingError, match="API_TOKENS entry 2") as err:
        make_app(API_TOKENS=f"bob:b0b,{entry}")
    assert "Sekr1t" not in str(err.value) and "x" * 10 not in str(err.value)


def test_a_bare_token_is_refused_and_never_becomes_an_owner(make_app):
    # Before: API_TOKENS=tok stored the secret "tok" itself in jobs.owner.
    with pytest.raises(auth.TokenSettingError, match="entry 1 has no client name") as err:
        make_app(API_TOKENS="s3cret-bare-token")
    assert "s3cret" not in str(err.value)


def test_owners_are_names_and_no_token_reaches_the_database(make_app, toy):
    app = make_app(API_TOKENS=f"alice:{TOKEN},bob:sha256:{hashlib.sha256(b'b0b').hexdigest()}")
    client = app.test_client()
    assert submit(client, headers=bearer(TOKEN)).status_code == 202
    assert submit(client, headers=bearer("b0b")).status_code == 202
    assert sorted(owners(app)) == ["alice", "bob"]


def test_a_digest_entry_keeps_the_token_out_of_the_settings(make_app, toy):
    app = make_app(API_TOKENS=f"alice:sha256:{DIGEST.upper()}")
    client = app.test_client()
    assert submit(client, headers=bearer(TOKEN)).status_code == 202
    assert submit(client, headers=bearer(DIGEST)).status_code == 401  # the digest is no token
    assert submit(client, headers=bearer(f"sha256:{DIGEST}")).status_code == 401
    assert TOKEN not in repr(app.extensions["auth"])


@pytest.mark.parametrize(("text", "message"), [
    ("alice:sha256:abc", "64 hex digits"),
    (f"alice:sha256:{DIGEST[:-1]}g", "64 hex digits"),
    ("alice:", "the token is empty"),
    ("alice:a,bob:a", "same token as an earlier entry"),
    (f"alice:{TOKEN},bob:sha256:{DIGEST}", "same token as an earlier entry"),
])
def test_malformed_entries_stop_the_service_at_start(make_app, text, message):
    with pytest.raises(auth.TokenSettingError, match=message):
        make_app(API_TOKENS=text)


def test_a_client_may_hold_several_tokens(make_app, toy):
    app = make_app(API_TOKENS="alice:old-token, alice:new-token ,")
    client = app.test_client()
    assert submit(client, headers=bearer("old-token")).status_code == 202
    job = submit(client, headers=bearer("new-token")).json
    assert client.get(f"/api/v1/jobs/{job['id']}", headers=bearer("old-token")).status_code == 200


def test_every_entry_is_compared_in_constant_time(monkeypatch):
    clients = auth.parse_clients("alice:a-token,bob:b-token,carol:c-token")
    calls = []
    compare = hmac.compare_digest

    def counting(a, b):
        calls.append((a, b))
        return compare(a, b)

    monkeypatch.setattr(auth.hmac, "compare_digest", counting)
    assert clients.identify("a-token") == "alice"  # the first entry matches, the others are still compared
    assert len(calls) == 3 and all(a == hashlib.sha256(b"a-token").digest() for a, _ in calls)
    assert clients.identify("nobody") is None and len(calls) == 6


def test_public_views_need_no_token(make_app, toy):
    client = make_app(API_TOKENS=f"alice:{TOKEN}").test_client()
    assert client.get("/api/v1/kinds").status_code == 200
    assert client.get("/api/v1/openapi.json").status_code == 200
    refused = client.get("/api/v1/jobs")
    assert refused.status_code == 401 and refused.mimetype == "application/problem+json"
    assert refused.headers["WWW-Authenticate"].startswith("Bearer")
    assert client.get("/api/v1/jobs", headers=bearer(TOKEN)).status_code == 200


def test_metrics_are_public_when_auth_is_off(client):
    assert client.get("/metrics").status_code == 200


def test_metrics_want_their_own_token_when_auth_is_on(make_app, toy):
    client = make_app(API_TOKENS=f"alice:{TOKEN}", METRICS_TOKEN="m-token").test_client()
    assert client.get("/metrics").status_code == 401
    refused = client.get("/metrics", headers=bearer(TOKEN))  # a client's token shows no global figures
    assert refused.status_code == 401 and refused.mimetype == "application/problem+json"
    ok = client.get("/metrics", headers=bearer("m-token"))
    assert ok.status_code == 200 and "puzzle_queue_jobs_submitted_total" in ok.get_data(as_text=True)


def test_metrics_are_closed_when_auth_is_on_without_a_metrics_token(make_app, toy):
    client = make_app(API_TOKENS=f"alice:{TOKEN}").test_client()
    refused = client.get("/metrics", headers=bearer(TOKEN))
    assert refused.status_code == 401 and "METRICS_TOKEN" in refused.json["detail"]


def test_a_metrics_token_alone_guards_metrics_as_a_digest_too(make_app, toy):
    client = make_app(METRICS_TOKEN=f"sha256:{DIGEST}").test_client()
    assert client.get("/metrics").status_code == 401
    assert client.get("/metrics", headers=bearer(TOKEN)).status_code == 200
    assert submit(client).status_code == 202  # the API itself stays open: no API_TOKENS


def test_hash_command_prints_the_entry_form(monkeypatch, capsys, make_app, toy):
    monkeypatch.setattr("sys.stdin", io.StringIO(TOKEN + "\n"))
    assert tokens.main(["hash"]) == 0
    printed = capsys.readouterr().out.strip()
    assert printed == f"sha256:{DIGEST}"
    client = make_app(API_TOKENS=f"alice:{printed}").test_client()
    assert submit(client, headers=bearer(TOKEN)).status_code == 202


def test_new_command_makes_a_token_and_its_entry(capsys, make_app, toy):
    assert tokens.main(["new", "carol"]) == 0
    lines = capsys.readouterr().out.splitlines()
    token = lines[0].rsplit(" ", 1)[1]
    entry = lines[1].rsplit(" ", 1)[1]
    assert entry.startswith("carol:sha256:") and token not in entry and len(token) >= 40
    app = make_app(API_TOKENS=entry)
    assert submit(app.test_client(), headers=bearer(token)).status_code == 202
    assert owners(app) == ["carol"]


def test_new_command_refuses_a_name_that_cannot_be_stored(capsys):
    with pytest.raises(SystemExit):
        tokens.main(["new", "x" * 65])
    assert "1 to 64 characters" in capsys.readouterr().err
