"""The two ways LTI goes wrong: a refusal (bad input from a platform or a browser) and a
failed call to the platform, which says whether trying again later can help."""

from __future__ import annotations


class LtiError(Exception):
    """A refusal with a message for a person: what was wrong, in plain words."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class PlatformError(LtiError):
    """A call to the platform failed. ``retryable`` is true when the same call may work
    later (a 5xx, 429, timeout or lost connection) and false when it never will (a 4xx,
    an answer that makes no sense): the score outbox keys its retries on it."""

    def __init__(self, message: str, *, retryable: bool, status: int | None = None) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.status = status
