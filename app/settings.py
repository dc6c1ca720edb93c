"""The web service's own settings, from ``DRILL_*`` environment variables.

The grading settings (exercises, sandbox, limits, storage) are
:class:`graders.settings.Settings`; what only a web node needs (where it listens, what it
admits, who may see the instructor pages) is added here, so a grading worker never reads
or needs it.
"""

from __future__ import annotations

from functools import lru_cache

from pydantic import Field, SecretStr

from graders.settings import Settings


class AppSettings(Settings):
    host: str = "127.0.0.1"
    port: int = Field(8000, ge=1, le=65535)
    max_code_bytes: int = Field(64 * 1024, ge=1024, le=1024 * 1024)
    # Per client (address): a token bucket of submissions.
    rate_per_minute: float = Field(60.0, gt=0)
    rate_burst: int = Field(20, ge=1)
    # Submissions waiting for or holding a worker; beyond this the service answers 503.
    max_pending: int = Field(32, ge=1)
    # Bearer token of the instructor dashboard (/instructor); unset or empty disables it.
    instructor_token: SecretStr | None = None


@lru_cache(maxsize=1)
def get_app_settings() -> AppSettings:
    return AppSettings()
