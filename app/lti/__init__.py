"""LTI 1.3 for Drill: the protocol core (Core, Dynamic Registration, Deep Linking, AGS, NRPS).

The protocol, in plain modules with no routes and no tables::

    keys.py           the tool's RSA key pair and its JWKS (/lti/jwks)
    registration.py   Registration, ToolSite, dynamic registration (/lti/register)
    login.py          OIDC third-party-initiated login (/lti/login), pending logins
    launch.py         id_token validation into a typed Launch (/lti/launch)
    deep_linking.py   the signed Deep Linking response (/lti/deep-link)
    services.py       OAuth2 client credentials, AGS line items and scores, NRPS members
    platform_keys.py  the platforms' JWKS, cached per URL
    roles.py          LIS roles to instructor / assistant / learner
    http.py           one bounded, timed, classified way to call a platform
    errors.py         LtiError (a refusal) and PlatformError (a failed call, retryable or not)
    memory.py         in-memory stores behind the protocols below

Drill's side of it, on the database (the routes are app/routers/lti.py)::

    store.py          the protocols' stores in the database, the tool's key, LMS users
    tool.py           what a login, launch, deep link and roster sync make of Drill's
                      accounts, courses, members and assignments
    outbox.py         scores on their way to the LMS's gradebook, and the thread sending them

Storage sits behind small protocols (``registration.Registrations``,
``launch.NonceStore``, ``login.LoginStates``). HTTP to the platform is synchronous httpx
with timeouts: run it off the event loop. Every refusal is an ``LtiError`` whose message
says what was wrong.
"""
