"""Callbacks without I/O (store.webhooks): signatures, each client's secret, the allow-list, the
retry schedule, and their settings."""

from __future__ import annotations

import hashlib
import hmac
import re

import pytest

from store import webhooks
from store.environment import SettingError
from store.settings import Settings


def test_the_signature_is_the_hmac_sha256_of_the_exact_body():
    body = b'{"id":"abc","status":"completed"}'
    expected = hmac.new(b"key", body, hashlib.sha256).hexdigest()
    assert webhooks.signature("key", body) == f"sha256={expected}"
    assert webhooks.signature("key", body + b" ") != webhooks.signature("key", body)
    assert webhooks.signature("other", body) != webhooks.signature("key", body)


def test_each_client_has_its_own_secret_derived_from_the_server_secret():
    a, b = webhooks.client_secret("server", "alice"), webhooks.client_secret("server", "bob")
    assert a != b and len(a) == 64
    assert a == hmac.new(b"server", b"alice", hashlib.sha256).hexdigest()
    assert webhooks.client_secret("rotated", "alice") != a


ALLOWED = ("hooks.example.com", "127.0.0.1", "10.1.0.0/16", "::1")


@pytest.mark.parametrize(("host", "allowed"), [
    ("hooks.example.com", True), ("HOOKS.example.com.", True), ("evil.example.com", False),
    ("127.0.0.1", True), ("127.0.0.2", False), ("10.1.200.3", True), ("10.2.0.1", False),
    ("[::1]", True), ("localhost", False),
])
def test_a_host_is_allowed_by_its_name_or_by_an_address_or_network(host, allowed):
    assert webhooks.host_allowed(host, 443, ALLOWED) is allowed


def test_a_named_host_may_resolve_anywhere_but_an_address_host_only_inside_the_list():
    assert webhooks.address_allowed("hooks.example.com", "192.0.2.9", 443, ALLOWED)
    assert not webhooks.address_allowed("evil.example.com", "192.0.2.9", 443, ALLOWED)
    assert webhooks.address_allowed("evil.example.com", "10.1.0.9", 443, ALLOWED)


SCOPED = ("hooks.example.com:8443", "127.0.0.1:9000", "10.1.0.0/16:443", "[::1]:8080", "open.example.com")


@pytest.mark.parametrize(("host", "port", "allowed"), [
    ("hooks.example.com", 8443, True), ("hooks.example.com", 443, False), ("hooks.example.com", 22, False),
    ("127.0.0.1", 9000, True), ("127.0.0.1", 6379, False), ("10.1.2.3", 443, True), ("10.1.2.3", 80, False),
    ("[::1]", 8080, True), ("[::1]", 5432, False), ("open.example.com", 1, True),
])
def test_an_entry_with_a_port_allows_only_that_port(host, port, allowed):
    assert webhooks.host_allowed(host, port, SCOPED) is allowed


def test_a_named_host_resolves_anywhere_only_at_its_entry_s_port():
    assert webhooks.address_allowed("hooks.example.com", "192.0.2.9", 8443, SCOPED)
    assert not webhooks.address_allowed("hooks.example.com", "192.0.2.9", 443, SCOPED)
    assert webhooks.address_allowed("evil.example.com", "10.1.0.9", 443, SCOPED)
    assert not webhooks.address_allowed("evil.example.com", "10.1.0.9", 80, SCOPED)


@pytest.mark.parametrize(("url", "problem"), [
    ("https://hooks.example.com:8443/x", None),
    ("https://hooks.example.com/x", "host 'hooks.example.com' is not among"),
    ("http://127.0.0.1:6379/x", "host '127.0.0.1' at port 6379 is not among"),
])
def test_a_callback_url_is_checked_against_its_port(url, problem):
    found = webhooks.url_problem(url, SCOPED)
    assert found == problem if problem is None else problem in (found or "")


@pytest.mark.parametrize("entry", ["hooks.example.com:0", "hooks.example.com:http", "[::1]x",
                                   "10.0.0.1:99999"])
def test_a_bad_port_in_an_entry_is_refused(entry):
    with pytest.raises(ValueError, match=re.escape(entry)):
        webhooks.parse_allowed([entry])


@pytest.mark.parametrize(("url", "fragment"), [
    ("ftp://hooks.example.com/x", "http or https"),
    ("hooks.example.com/x", "http or https"),
    ("https://user:pw@hooks.example.com/x", "user name"),
    ("https://evil.example.com/x", "'evil.example.com' is not among"),
    ("http://hooks.example.com:99999/x", "not a URL"),
    ("https://hooks.example.com/" + "x" * 2000, "at most 2000"),
])
def test_a_callback_url_that_cannot_be_used_says_why(url, fragment):
    problem = webhooks.url_problem(url, ALLOWED)
    assert problem is not None and fragment in problem


def test_a_callback_url_on_an_allowed_host_passes_and_none_passes_with_callbacks_off():
    assert webhooks.url_problem("https://hooks.example.com:8443/in?x=1", ALLOWED) is None
    assert "off" in (webhooks.url_problem("https://hooks.example.com/", ()) or "")


def test_retries_wait_twice_as_long_each_time_up_to_the_longest_wait():
    delays = [webhooks.retry_delay(n, 10.0, 3600.0) for n in range(1, 11)]
    assert delays == [10, 20, 40, 80, 160, 320, 640, 1280, 2560, 3600]
    assert webhooks.retry_delay(10_000, 10.0, 3600.0) == 3600


def test_the_settings_read_the_allowed_hosts_as_a_list_and_need_a_secret_with_them():
    config = Settings.from_env({"WEBHOOK_ALLOWED_HOSTS": " a.example , 10.0.0.0/8,", "WEBHOOK_SECRET": "s"})
    assert config.webhooks.webhook_allowed_hosts == ("a.example", "10.0.0.0/8") and config.webhooks.enabled
    assert not Settings.from_env({}).webhooks.enabled
    with pytest.raises(SettingError, match="WEBHOOK_SECRET"):
        Settings.from_env({"WEBHOOK_ALLOWED_HOSTS": "a.example"})
    with pytest.raises(SettingError, match="WEBHOOK_ALLOWED_HOSTS"):
        Settings.from_env({"WEBHOOK_ALLOWED_HOSTS": "10.0.0.300/8", "WEBHOOK_SECRET": "s"})
