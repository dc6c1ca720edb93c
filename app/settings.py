"""The web service's own settings, from ``DRILL_*`` environment variables.

The grading settings (exercises, sandbox, limits, storage) are
:class:`graders.settings.Settings`; what only a web node needs (where it listens, what it
admits, who may see the instructor pages) is added here, so a grading worker never reads
or needs it.
"""

from __future__ import annotations

import ipaddress
import json
from functools import lru_cache
from typing import Annotated, Any

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import NoDecode

from graders.settings import Settings


class AppSettings(Settings):
    host: str = "127.0.0.1"
    port: int = Field(8000, ge=1, le=65535)
    max_code_bytes: int = Field(64 * 1024, ge=1024, le=1024 * 1024)
    # Per client (address): a token bucket of submissions.
    rate_per_minute: float = Field(60.0, gt=0)
    rate_burst: int = Field(20, ge=1)
    # Per client (address), per node: a token bucket of draft saves (the editor saves a
    # second after typing stops). With the code size cap, it bounds what one client can
    # add to the database: burst x 64 KiB at once, then per_minute x 64 KiB a minute.
    draft_rate_per_minute: float = Field(120.0, gt=0)
    draft_burst: int = Field(30, ge=1)
    # Submissions waiting for or holding a worker; beyond this the service answers 503.
    max_pending: int = Field(32, ge=1)
    # Fair share of the graders (app/admission.py). Per client (address) and per learner:
    # submissions waiting or being graded at once; beyond them 429 ("wait for your results").
    max_pending_per_client: int = Field(8, ge=1)
    max_pending_per_learner: int = Field(4, ge=1)
    # The grading slots this node hands out: its learner workers (default DRILL_WORKERS), or
    # in distributed mode its share of the cluster's learner worker slots.
    grading_slots: int | None = Field(None, ge=1)
    # The most slots one client holds at once (default half the slots, at least one): one
    # client's slow jobs leave workers free for every other learner.
    client_share: int | None = Field(None, ge=1)
    # Days the learners' output is kept with their submissions (app/retention.py); verdicts
    # and code are kept for good. 0 keeps outputs for good too.
    output_retention_days: float = Field(30.0, ge=0)
    # Slow and greedy clients, guarded per connection (app/slow_clients.py). A request's
    # head must arrive within header_timeout s of the connection opening or of the previous
    # answer (408): a browser sends it in one packet; 10 s outlasts three lost packets'
    # retransmissions. Its body within body_timeout s of the head (408): the largest body
    # the service takes (about 390 KiB) at 13 KB/s, far below any real link.
    header_timeout: float = Field(10.0, gt=0, le=300)
    body_timeout: float = Field(30.0, gt=0, le=600)
    # An idle keep-alive connection is closed after this (uvicorn's own default): the page
    # sends a draft save a second after typing stops, and a new connection costs little.
    keep_alive_timeout: int = Field(5, ge=1, le=300)
    # Open connections: 503 beyond max_connections (a few hundred: well within the usual
    # limit of 1024 descriptors, with room for the database, the workers' pipes and logs),
    # 429 beyond max_connections_per_client from one address (a browser opens at most 6;
    # a classroom behind one NAT address shares it: raise it there). A trusted proxy's
    # connections are not counted per client: many clients share its address.
    max_connections: int = Field(512, ge=1)
    max_connections_per_client: int = Field(64, ge=1)
    # Bearer token of the instructor dashboard (/instructor); unset or empty disables it.
    instructor_token: SecretStr | None = None
    # The reverse proxies in front of the service: IPs or CIDRs (in the environment,
    # comma-separated or a JSON list). Only a request from one of these has its
    # X-Forwarded-For read: anyone else could write any address there. Empty: the peer
    # is the client.
    trusted_proxies: Annotated[list[str], NoDecode] = Field(default_factory=list)
    # The service's address as browsers and LMSs reach it (https://drill.example.org), for
    # what Drill tells an LMS about itself (LTI: its login, launch and key set URLs, the
    # links deep linking adds). Unset: the address each request came to.
    public_url: str | None = None

    @field_validator("public_url")
    @classmethod
    def _public_url(cls, value: str | None) -> str | None:
        if not value:
            return None
        if not value.startswith(("https://", "http://")) or "?" in value or "#" in value:
            raise ValueError(f"DRILL_PUBLIC_URL: not an http(s) base URL: {value!r}")
        return value.rstrip("/")

    @field_validator("trusted_proxies", mode="before")
    @classmethod
    def _comma_separated(cls, value: Any) -> Any:
        if isinstance(value, str) and value.lstrip().startswith("["):
            try:
                return json.loads(value)  # a JSON list, pydantic-settings' usual form
            except ValueError as exc:
                raise ValueError(f"DRILL_TRUSTED_PROXIES: not a JSON list: {exc}") from None
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value

    @field_validator("trusted_proxies")
    @classmethod
    def _networks(cls, value: list[str]) -> list[str]:
        # Refused at start-up, not ignored at the first request: a typo here would trust
        # nobody; an address with a prefix (10.1.2.3/8) may trust far more than meant.
        try:
            return [str(ipaddress.ip_network(entry)) for entry in value]
        except ValueError as exc:
            raise ValueError(f"DRILL_TRUSTED_PROXIES: {exc}") from None

    @property
    def slots(self) -> int:
        return self.grading_slots or self.workers

    @property
    def share(self) -> int:
        return self.client_share or max(1, self.slots // 2)


@lru_cache(maxsize=1)
def get_app_settings() -> AppSettings:
    return AppSettings()
