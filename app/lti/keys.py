"""The tool's own RSA key pair: it signs Deep Linking responses and OAuth2 client assertions,
and platforms check them against the public half published at ``/lti/jwks``.

The key is stored as PEM or as JWK JSON (the lead picks where). Its ``kid`` is the RFC 7638
thumbprint unless one is given, so a key read back from PEM keeps the same ``kid``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from joserfc import jwt
from joserfc.jwk import KeyParameters, RSAKey

ALGORITHM = "RS256"
KEY_BITS = 2048


@dataclass(frozen=True)
class ToolKey:
    """A private RSA key with its ``kid``; ``sign`` makes an RS256 JWT naming that ``kid``."""

    key: RSAKey

    def __post_init__(self) -> None:
        if not self.key.is_private:
            raise ValueError("the tool's key must be a private key")
        self.key.ensure_kid()

    @property
    def kid(self) -> str:
        return str(self.key.kid)

    @classmethod
    def generate(cls, kid: str | None = None) -> ToolKey:
        parameters: KeyParameters | None = {"kid": kid} if kid else None
        return cls(RSAKey.generate_key(KEY_BITS, parameters=parameters, auto_kid=kid is None))

    @classmethod
    def from_pem(cls, pem: str | bytes, kid: str | None = None) -> ToolKey:
        parameters: KeyParameters | None = {"kid": kid} if kid else None
        return cls(RSAKey.import_key(pem, parameters=parameters))

    def to_pem(self) -> str:
        return self.key.as_pem(private=True).decode("ascii")

    @classmethod
    def from_jwk_json(cls, text: str) -> ToolKey:
        return cls(RSAKey.import_key(json.loads(text)))

    def to_jwk_json(self) -> str:
        """The private key with its ``kid`` as JWK JSON: keep it secret."""
        return json.dumps(self.key.as_dict(private=True))

    def public_jwk(self) -> dict[str, Any]:
        return dict(self.key.as_dict(private=False, alg=ALGORITHM, use="sig"))

    def sign(self, claims: dict[str, Any], typ: str = "JWT") -> str:
        return jwt.encode(
            {"alg": ALGORITHM, "kid": self.kid, "typ": typ}, claims, self.key, [ALGORITHM]
        )


def jwks(*keys: ToolKey) -> dict[str, list[dict[str, Any]]]:
    """The body of ``GET /lti/jwks``: every key still in use (the new one and, while
    platforms may still hold tokens signed by it, the old one)."""
    return {"keys": [key.public_jwk() for key in keys]}
