"""The LTI stores in the database, shared by every web node: registrations, nonces of
accepted launches, pending logins, the LMS users, and the tool's own signing key.

Each one is the database version of a protocol of the core (``registration.Registrations``,
``launch.NonceStore``, ``login.LoginStates``); every method blocks (run it in a thread).

- A nonce is used once by an INSERT into a table whose key it is: of two nodes taking the
  same launch at once, the database lets one insert win and the other gets the key error.
- A pending login is taken by a DELETE whose row count says who took it: of two launches
  bringing the same ``state``, one deletes the row and the other deletes nothing.
- The tool's key is made once, by whichever node starts first (under an advisory lock on
  PostgreSQL); every node then signs with the oldest key, and ``/lti/jwks`` publishes
  every stored key, so a token signed by any node is checked by the platform.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import delete, insert, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from app.lti.errors import LtiError
from app.lti.keys import ToolKey
from app.lti.login import PendingLogin
from app.lti.registration import Registration
from app.migrate import advisory_lock, lock_key
from app.store import Store, database_errors, new_id, now
from app.tables import (
    LtiKeyRow,
    LtiNonceRow,
    LtiRegistrationRow,
    LtiStateRow,
    LtiUserRow,
)

KEY_LOCK = lock_key("lti-tool-key")
MAX_URL = 2048  # characters of a URL an operator types or a platform's configuration gives
MAX_NAME = 255  # characters of an issuer, client id or deployment id (the columns' width)


def _epoch(when: float) -> datetime:
    return datetime.fromtimestamp(when, UTC)


@dataclass(frozen=True)
class StoredRegistration:
    """A registration and its row's id (what a course made by its launches names)."""

    id: str
    registration: Registration
    created_at: datetime


def _registration(row: LtiRegistrationRow) -> Registration:
    return Registration(
        issuer=row.issuer,
        client_id=row.client_id,
        deployment_ids=tuple(str(d) for d in row.deployment_ids or ()),
        auth_login_url=row.auth_login_url,
        auth_token_url=row.auth_token_url,
        key_set_url=row.key_set_url,
        auth_token_audience=row.auth_token_audience,
    )


def check_registration(registration: Registration) -> None:
    """Refuse (``LtiError``) a registration whose fields do not fit or are not URLs."""
    for name in ("issuer", "client_id"):
        value = getattr(registration, name)
        if not value or len(value) > MAX_NAME:
            raise LtiError(f"the {name.replace('_', ' ')} must be 1 to {MAX_NAME} characters")
    if not registration.deployment_ids:
        raise LtiError("a registration needs at least one deployment id")
    if any(not d or len(d) > MAX_NAME for d in registration.deployment_ids):
        raise LtiError(f"a deployment id is 1 to {MAX_NAME} characters")
    for name in ("auth_login_url", "auth_token_url", "key_set_url"):
        value = getattr(registration, name)
        if not value.startswith(("https://", "http://")) or len(value) > MAX_URL:
            raise LtiError(f"the {name.replace('_', ' ')} must be an http(s) URL")


class DbRegistrations:
    """``registration.Registrations`` in the ``lti_registrations`` table."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def find(self, issuer: str, client_id: str | None = None) -> Registration | None:
        found = self.find_stored(issuer, client_id)
        return None if found is None else found.registration

    def find_stored(self, issuer: str, client_id: str | None = None) -> StoredRegistration | None:
        query = select(LtiRegistrationRow).where(LtiRegistrationRow.issuer == issuer)
        if client_id is not None:
            query = query.where(LtiRegistrationRow.client_id == client_id)
        with database_errors(), self.store._session() as session:
            rows = session.scalars(query.limit(2)).all()
        if len(rows) != 1:
            return None  # none, or several client ids and the caller named none
        return StoredRegistration(rows[0].id, _registration(rows[0]), rows[0].created_at)

    def get(self, registration_id: str) -> Registration | None:
        with database_errors(), self.store._session() as session:
            row = session.get(LtiRegistrationRow, registration_id)
        return None if row is None else _registration(row)

    def all(self) -> list[StoredRegistration]:
        query = select(LtiRegistrationRow).order_by(LtiRegistrationRow.created_at)
        with database_errors(), self.store._session() as session:
            return [
                StoredRegistration(row.id, _registration(row), row.created_at)
                for row in session.scalars(query)
            ]

    def add(self, registration: Registration) -> str:
        """Store ``registration`` (the same issuer and client id again: replaced, keeping
        its id, so the courses that name it keep working); its id."""
        check_registration(registration)
        values = {
            "deployment_ids": list(registration.deployment_ids),
            "auth_login_url": registration.auth_login_url,
            "auth_token_url": registration.auth_token_url,
            "key_set_url": registration.key_set_url,
            "auth_token_audience": registration.auth_token_audience,
        }
        where = (
            LtiRegistrationRow.issuer == registration.issuer,
            LtiRegistrationRow.client_id == registration.client_id,
        )
        for _ in range(2):  # a second node storing the same one at once: then an update
            with database_errors(), self.store.engine.begin() as connection:
                found = connection.execute(select(LtiRegistrationRow.id).where(*where)).scalar()
                if found is not None:
                    connection.execute(update(LtiRegistrationRow).where(*where).values(**values))
                    return str(found)
                registration_id = new_id()
                try:
                    connection.execute(
                        insert(LtiRegistrationRow),
                        {
                            "id": registration_id,
                            "issuer": registration.issuer,
                            "client_id": registration.client_id,
                            "created_at": now(),
                            **values,
                        },
                    )
                except IntegrityError:
                    continue
                return registration_id
        raise LtiError("the registration could not be stored; try again")


class DbNonces:
    """``launch.NonceStore``: a nonce is the key of its row, so only one insert wins."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def use_once(self, nonce: str, expires_at: float) -> bool:
        if len(nonce) > 128:
            return False  # longer than any platform's nonce: never accepted
        try:
            with database_errors(), self.store.engine.begin() as connection:
                connection.execute(delete(LtiNonceRow).where(LtiNonceRow.expires_at < now()))
                connection.execute(
                    insert(LtiNonceRow), {"nonce": nonce, "expires_at": _epoch(expires_at)}
                )
        except IntegrityError:
            return False
        return True


class DbLoginStates:
    """``login.LoginStates``: a pending login waits in ``lti_states`` for its launch; it is
    taken by deleting it, and only the delete that removed the row gets it."""

    def __init__(self, store: Store, registrations: DbRegistrations) -> None:
        self.store = store
        self.registrations = registrations

    def put(self, pending: PendingLogin) -> None:
        found = self.registrations.find_stored(pending.issuer, pending.client_id)
        if found is None:
            raise LtiError(f"platform {pending.issuer} is not registered with this tool")
        with database_errors(), self.store.engine.begin() as connection:
            connection.execute(delete(LtiStateRow).where(LtiStateRow.expires_at < now()))
            connection.execute(
                insert(LtiStateRow),
                {
                    "state": pending.state,
                    "nonce": pending.nonce,
                    "registration_id": found.id,
                    "expires_at": _epoch(pending.expires_at),
                },
            )

    def take(self, state: str, now: float) -> PendingLogin | None:
        if len(state) > 64:
            return None  # no state this tool makes is longer
        with database_errors(), self.store.engine.begin() as connection:
            row = connection.execute(select(LtiStateRow).where(LtiStateRow.state == state)).first()
            if row is None:
                return None
            taken = connection.execute(delete(LtiStateRow).where(LtiStateRow.state == state))
        if taken.rowcount != 1:
            return None  # another launch with the same state took it first
        expires = row.expires_at if row.expires_at.tzinfo else row.expires_at.replace(tzinfo=UTC)
        if expires.timestamp() <= now:
            return None
        registration = self.registrations.get(row.registration_id)
        if registration is None:
            return None  # the platform was removed since the login
        return PendingLogin(
            state=row.state,
            nonce=row.nonce,
            issuer=registration.issuer,
            client_id=registration.client_id,
            target_link_uri="",  # not kept: the launch's own target_link_uri is checked
            expires_at=expires.timestamp(),
        )


# --- the tool's key ---


def tool_keys(store: Store) -> list[ToolKey]:
    """Every stored key of the tool, oldest first: the first one signs."""
    query = select(LtiKeyRow).order_by(LtiKeyRow.created_at, LtiKeyRow.kid)
    with database_errors(), store._session() as session:
        return [ToolKey.from_jwk_json(row.private_jwk) for row in session.scalars(query)]


def load_tool_key(store: Store) -> ToolKey:
    """The key the tool signs with, made and stored on the first call anywhere."""
    keys = tool_keys(store)
    if keys:
        return keys[0]
    with advisory_lock(store.engine, KEY_LOCK):
        keys = tool_keys(store)  # another node may have made it while this one waited
        if keys:
            return keys[0]
        key = ToolKey.generate()
        with database_errors(), store.engine.begin() as connection:
            connection.execute(
                insert(LtiKeyRow),
                {"kid": key.kid, "private_jwk": key.to_jwk_json(), "created_at": now()},
            )
    return tool_keys(store)[0]


# --- LMS users ---


def lti_account_id(connection: Connection, issuer: str, subject: str) -> str | None:
    found = connection.execute(
        select(LtiUserRow.account_id).where(
            LtiUserRow.issuer == issuer, LtiUserRow.subject == subject
        )
    ).scalar()
    return None if found is None else str(found)


def lti_subject(connection: Connection, issuer: str, account_id: str) -> str | None:
    """The user id the platform ``issuer`` knows ``account_id`` by."""
    found = connection.execute(
        select(LtiUserRow.subject).where(
            LtiUserRow.issuer == issuer, LtiUserRow.account_id == account_id
        )
    ).scalar()
    return None if found is None else str(found)
