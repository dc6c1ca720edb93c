"""``drill lti``: the LMSs that may launch Drill (LTI 1.3). ``register`` adds one by hand
(what an LMS without dynamic registration tells its administrator), ``list`` shows them,
``jwks`` prints the tool's public keys (made on first use, shared by every node)."""

from __future__ import annotations

import argparse
import json

from drill.commands import Command
from graders.errors import DrillError


class LtiCommandError(DrillError):
    pass


def add_arguments(lti: argparse.ArgumentParser) -> None:
    actions = lti.add_subparsers(
        dest="action", required=True, metavar="ACTION", help="what to do (drill lti ACTION -h)"
    )
    register = actions.add_parser(
        "register",
        help="register an LMS by hand (the same issuer and client id again: updated)",
    )
    register.add_argument("--issuer", required=True, help="the platform's issuer (iss)")
    register.add_argument("--client-id", required=True, help="what the LMS calls Drill")
    register.add_argument(
        "--deployment-id",
        required=True,
        action="append",
        dest="deployment_ids",
        help="a deployment id (repeat for several)",
    )
    register.add_argument("--auth-login-url", required=True, help="its OIDC authorization URL")
    register.add_argument("--auth-token-url", required=True, help="its OAuth2 token URL")
    register.add_argument("--key-set-url", required=True, help="its public keys (JWKS) URL")
    register.add_argument(
        "--auth-token-audience", help="the token URL's audience, when not the URL itself"
    )
    actions.add_parser("list", help="the registered LMSs: id, issuer, client id, deployments")
    actions.add_parser("jwks", help="the tool's public keys, as JSON (what /lti/jwks serves)")


def run(args: argparse.Namespace) -> int:
    from app.lti.errors import LtiError
    from app.lti.keys import jwks
    from app.lti.registration import Registration, ToolSite
    from app.lti.store import DbRegistrations, load_tool_key, tool_keys
    from app.settings import get_app_settings
    from app.store import Store

    settings = get_app_settings()
    store = Store(settings.database_url)
    registrations = DbRegistrations(store)
    try:
        if args.action == "register":
            registration = Registration(
                issuer=args.issuer.strip(),
                client_id=args.client_id.strip(),
                deployment_ids=tuple(d.strip() for d in args.deployment_ids),
                auth_login_url=args.auth_login_url.strip(),
                auth_token_url=args.auth_token_url.strip(),
                key_set_url=args.key_set_url.strip(),
                auth_token_audience=args.auth_token_audience,
            )
            try:
                registration_id = registrations.add(registration)
            except LtiError as exc:
                raise LtiCommandError(exc.message) from None
            print(f"{registration_id}\t{registration.issuer}\t{registration.client_id}")
            if settings.public_url:
                site = ToolSite(settings.public_url)
                print(f"tell the LMS: login {site.login_url}")
                print(f"              launch {site.launch_url}")
                print(f"              keys {site.jwks_url}")
        elif args.action == "list":
            for stored in registrations.all():
                found = stored.registration
                deployments = ",".join(found.deployment_ids)
                print(f"{stored.id}\t{found.issuer}\t{found.client_id}\t{deployments}")
        elif args.action == "jwks":
            load_tool_key(store)
            print(json.dumps(jwks(*tool_keys(store)), indent=2))
        return 0
    finally:
        store.close()


COMMAND = Command(
    name="lti",
    help="the LMSs that may launch Drill (LTI 1.3)",
    add_arguments=add_arguments,
    run=run,
)
