"""The settings of job callbacks (store.webhooks, worker.webhooks): which hosts a callback may
reach, the secret signatures derive from, and how deliveries are retried."""

from __future__ import annotations

from dataclasses import dataclass

from store.environment import SettingError, setting
from store.webhooks import parse_allowed


@dataclass(frozen=True)
class Webhooks:
    """Job callbacks: a job's summary POSTed to its ``callback_url`` when it ends (docs/API.md)."""

    webhook_allowed_hosts: tuple[str, ...] = setting(
        (), "hosts a callback_url may name, comma-separated: names ('hooks.example.com'), addresses or "
            "networks ('10.0.0.0/8'); empty: callbacks are off and a job naming one is refused")
    webhook_secret: str = setting("", "the server's secret; each client's signing secret is the HMAC-SHA256 "
                                      "of its name under it (required with WEBHOOK_ALLOWED_HOSTS)")
    webhook_timeout: float = setting(5.0, "seconds a delivery attempt may take in all: connecting, sending "
                                          "the body and reading the answer's status and headers",
                                     minimum=0.1)
    webhook_first_retry: float = setting(10.0, "seconds before the first retry; each next one waits twice "
                                               "as long", minimum=0.1)
    webhook_max_delay: float = setting(3600.0, "longest wait between two attempts", minimum=0.1)
    webhook_retry_seconds: float = setting(86400.0, "a delivery not accepted this long after its job ended "
                                                    "is given up", minimum=0)

    def __post_init__(self) -> None:
        try:
            parse_allowed(self.webhook_allowed_hosts)
        except ValueError as exc:
            raise SettingError(f"WEBHOOK_ALLOWED_HOSTS: {exc}") from None
        if self.webhook_allowed_hosts and not self.webhook_secret:
            raise SettingError("WEBHOOK_ALLOWED_HOSTS needs WEBHOOK_SECRET, which signs the deliveries")

    @property
    def enabled(self) -> bool:
        return bool(self.webhook_allowed_hosts)
