"""Accounts and their sessions: sign up, sign in, sign out, change the password.

Passwords are hashed with argon2id (argon2-cffi's defaults, 64 MiB and 3 passes: about
50 ms a hash), at most ``HASHING_AT_ONCE`` at a time so that a flood of sign-ins cannot
take every core or gigabytes of memory. A session is a random token in the browser
(the ``drill_session`` cookie, or for an LMS launch in an iframe a header the page sends);
only its SHA-256 is stored, so a copy of the database signs nobody in. Sessions expire on
the server's clock and end on sign-out or a password change.

An anonymous learner who signs up or in brings what they did: their submissions and
drafts move to the account's learner id, once (the rows move, so nothing is left to move
again) and only into the account just signed in to.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import threading
import time
import unicodedata
from dataclasses import dataclass
from datetime import datetime, timedelta

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import delete, insert, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from app.store import Store, aware, database_errors, new_id, now
from app.tables import AccountRow, DraftRow, SessionRow, SubmissionRow

SESSION_DAYS = 14  # a browser stays signed in this long without signing in again
LAUNCH_HOURS = 8  # an LMS launch's session: a working day in the LMS
USERNAME = re.compile(r"[a-z0-9][a-z0-9._-]{2,31}")
MIN_PASSWORD, MAX_PASSWORD = 10, 256  # characters; longer ones only cost hashing time
MAX_NAME = 100
HASHING_AT_ONCE = 2
CACHE_SECONDS = 10.0  # how long a node trusts a session it looked up (sign-out elsewhere)

_hasher = PasswordHasher()
_hashing = threading.BoundedSemaphore(HASHING_AT_ONCE)
# Checked against when the name is unknown, so that a wrong name takes as long as a
# wrong password: the answer's time does not tell which names exist.
_DUMMY_HASH = _hasher.hash("not a password anyone has")


class AccountError(Exception):
    """A sign-up or sign-in that cannot be done, with the message to show."""


@dataclass(frozen=True)
class Account:
    id: str
    learner: str
    username: str | None
    display_name: str
    email: str | None
    has_password: bool


def _account(row: AccountRow) -> Account:
    return Account(
        row.id,
        row.learner,
        row.username,
        row.display_name,
        row.email,
        row.password_hash is not None,
    )


def _hash(password: str) -> str:
    with _hashing:
        return _hasher.hash(password)


def _verify(hashed: str, password: str) -> bool:
    with _hashing:
        try:
            return _hasher.verify(hashed, password)
        except (VerificationError, InvalidHashError):
            return False


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("ascii", "replace")).hexdigest()


def new_learner_id() -> str:
    """An id of the kind an anonymous learner's cookie holds (app.middleware)."""
    return secrets.token_urlsafe(24)


def clean_username(raw: str) -> str:
    name = unicodedata.normalize("NFKC", raw).strip().lower()
    if not USERNAME.fullmatch(name):
        raise AccountError(
            "A user name is 3 to 32 characters: letters, digits, dots, dashes or "
            "underscores, starting with a letter or digit."
        )
    return name


def clean_display_name(raw: str, fallback: str) -> str:
    name = " ".join(unicodedata.normalize("NFKC", raw).split())
    if len(name) > MAX_NAME:
        raise AccountError(f"A name is at most {MAX_NAME} characters.")
    return name or fallback


def check_password(password: str) -> None:
    if len(password) < MIN_PASSWORD:
        raise AccountError(f"A password has at least {MIN_PASSWORD} characters.")
    if len(password) > MAX_PASSWORD:
        raise AccountError(f"A password has at most {MAX_PASSWORD} characters.")


class Accounts:
    """Accounts and sessions in the store."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._cache: dict[str, tuple[float, Account | None]] = {}
        self._cache_lock = threading.Lock()

    # --- accounts ---

    def sign_up(
        self, username: str, password: str, display_name: str = "", learner: str | None = None
    ) -> Account:
        """A new account; ``learner`` (the anonymous id of the browser) is merged into it."""
        name = clean_username(username)
        check_password(password)
        account_id, account_learner = new_id(), new_learner_id()
        row = {
            "id": account_id,
            "learner": account_learner,
            "username": name,
            "display_name": clean_display_name(display_name, name),
            "email": None,
            "password_hash": _hash(password),
            "created_at": now(),
        }
        try:
            with database_errors(), self.store.engine.begin() as connection:
                connection.execute(insert(AccountRow), row)
                if learner:
                    merge_learner(connection, learner, account_learner)
        except IntegrityError:
            raise AccountError(f"The user name “{name}” is taken; choose another.") from None
        return self.get(account_id) or _never()

    def sign_in(self, username: str, password: str, learner: str | None = None) -> Account:
        """The account these credentials open (``learner`` merged into it), or AccountError."""
        wrong = AccountError("That user name and password do not match an account.")
        try:
            name = clean_username(username)
        except AccountError:
            _verify(_DUMMY_HASH, password)
            raise wrong from None
        with database_errors(), self.store._session() as session:
            row = session.scalars(select(AccountRow).where(AccountRow.username == name)).first()
        if row is None or row.password_hash is None:
            _verify(_DUMMY_HASH, password)
            raise wrong
        if not _verify(row.password_hash, password[: MAX_PASSWORD * 4]):
            raise wrong
        if learner and learner != row.learner:
            with database_errors(), self.store.engine.begin() as connection:
                merge_learner(connection, learner, row.learner)
        return _account(row)

    def change_password(self, account: Account, old: str, new: str, keep: str) -> None:
        """Change the password and end every other session (``keep``: this browser's token)."""
        with database_errors(), self.store._session() as session:
            row = session.get(AccountRow, account.id)
        if row is None:
            raise AccountError("This account no longer exists.")
        if row.password_hash is not None and not _verify(row.password_hash, old):
            raise AccountError("The current password is not right.")
        check_password(new)
        hashed = _hash(new)
        with database_errors(), self.store.engine.begin() as connection:
            connection.execute(
                update(AccountRow).where(AccountRow.id == account.id).values(password_hash=hashed)
            )
            connection.execute(
                delete(SessionRow).where(
                    SessionRow.account_id == account.id,
                    SessionRow.token_hash != token_hash(keep),
                )
            )
        self.forget_cached_sessions()

    def get(self, account_id: str) -> Account | None:
        with database_errors(), self.store._session() as session:
            row = session.get(AccountRow, account_id)
        return None if row is None else _account(row)

    def by_username(self, username: str) -> Account | None:
        with database_errors(), self.store._session() as session:
            row = session.scalars(
                select(AccountRow).where(AccountRow.username == username.strip().lower())
            ).first()
        return None if row is None else _account(row)

    def create_external(self, display_name: str, email: str | None) -> Account:
        """An account without a password (an LMS user's first launch)."""
        account_id = new_id()
        row = {
            "id": account_id,
            "learner": new_learner_id(),
            "username": None,
            "display_name": clean_display_name(display_name[:MAX_NAME], "LMS user"),
            "email": (email or None) and email[:254],
            "password_hash": None,
            "created_at": now(),
        }
        with database_errors(), self.store.engine.begin() as connection:
            connection.execute(insert(AccountRow), row)
        return self.get(account_id) or _never()

    # --- sessions ---

    def start_session(self, account: Account, kind: str = "cookie") -> tuple[str, datetime]:
        """A new session's token (for the browser only) and when it expires."""
        token = secrets.token_urlsafe(32)
        life = timedelta(days=SESSION_DAYS) if kind == "cookie" else timedelta(hours=LAUNCH_HOURS)
        started = now()
        expires = started + life
        row = {
            "token_hash": token_hash(token),
            "account_id": account.id,
            "kind": kind,
            "created_at": started,
            "expires_at": expires,
        }
        with database_errors(), self.store.engine.begin() as connection:
            # Expired sessions go as new ones come: the table holds live ones only.
            connection.execute(delete(SessionRow).where(SessionRow.expires_at < started))
            connection.execute(insert(SessionRow), row)
        return token, expires

    def session_account(self, token: str) -> Account | None:
        """The account a live session token belongs to, or None (unknown, ended, expired)."""
        key = token_hash(token)
        stamp = time.monotonic()
        with self._cache_lock:
            cached = self._cache.get(key)
        if cached is not None and stamp - cached[0] < CACHE_SECONDS:
            return cached[1]
        query = (
            select(AccountRow, SessionRow.expires_at)
            .join(SessionRow, SessionRow.account_id == AccountRow.id)
            .where(SessionRow.token_hash == key)
        )
        with database_errors(), self.store._session() as session:
            found = session.execute(query).first()
        account = None
        if found is not None and aware(found[1]) > now():
            account = _account(found[0])
        with self._cache_lock:
            if len(self._cache) > 10_000:
                self._cache.clear()
            self._cache[key] = (stamp, account)
        return account

    def end_session(self, token: str) -> None:
        key = token_hash(token)
        with database_errors(), self.store.engine.begin() as connection:
            connection.execute(delete(SessionRow).where(SessionRow.token_hash == key))
        with self._cache_lock:
            self._cache.pop(key, None)

    def forget_cached_sessions(self) -> None:
        """Look every session up again (after a change that ends sessions or accounts)."""
        with self._cache_lock:
            self._cache.clear()


def merge_learner(connection: Connection, source: str, target: str) -> None:
    """Move ``source``'s submissions and drafts to ``target`` (a draft both have: the newer
    one stays), in the caller's transaction."""
    if source == target:
        return
    connection.execute(
        update(SubmissionRow).where(SubmissionRow.learner == source).values(learner=target)
    )
    d = DraftRow
    theirs = {
        (row.exercise, row.track): aware(row.updated_at)
        for row in connection.execute(
            select(d.exercise, d.track, d.updated_at).where(d.learner == target)
        )
    }
    for row in connection.execute(select(d).where(d.learner == source)).all():
        key = (row.exercise, row.track)
        if key in theirs and theirs[key] >= aware(row.updated_at):
            continue
        connection.execute(
            delete(d).where(d.learner == target, d.exercise == row.exercise, d.track == row.track)
        )
        connection.execute(
            insert(d).values(
                learner=target,
                exercise=row.exercise,
                track=row.track,
                code=row.code,
                updated_at=row.updated_at,
            )
        )
    connection.execute(delete(d).where(d.learner == source))


def _never() -> Account:
    raise RuntimeError("an account just written cannot be read back")
