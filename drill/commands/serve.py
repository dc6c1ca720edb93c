"""``drill serve``: run the web service under uvicorn, with its settings from the command line."""

from __future__ import annotations

import argparse
import logging
from typing import TYPE_CHECKING, Any

from drill.commands import Command
from drill.malloc import pin_mmap_threshold

if TYPE_CHECKING:
    from app.settings import AppSettings


def add_arguments(serve: argparse.ArgumentParser) -> None:
    serve.add_argument("--host", help="the address to listen on (default: DRILL_HOST, 127.0.0.1)")
    serve.add_argument("--port", type=int, help="the port to listen on (default: DRILL_PORT, 8000)")
    serve.add_argument(
        "--reload",
        action="store_true",
        help="serve edits of the exercises folder without a restart (the workers keep running)",
    )


def serve_settings(args: argparse.Namespace, **fixed: Any) -> AppSettings:
    """The settings of ``drill serve``: the environment's, then the command line's, then
    ``fixed`` (what ``drill preview`` imposes)."""
    overrides: dict[str, Any] = {
        k: v for k, v in (("host", args.host), ("port", args.port)) if v is not None
    }
    if args.reload:  # our own reload of the catalog, not uvicorn's restart of the process
        overrides["reload"] = True
    overrides.update(fixed)
    from app.settings import AppSettings

    return AppSettings(**overrides)


def run(args: argparse.Namespace, settings: AppSettings | None = None) -> int:
    """Serve until uvicorn stops; ``drill preview`` passes the ``settings`` it imposes."""
    import uvicorn

    from app.main import create_app
    from app.slow_clients import uvicorn_options

    settings = settings or serve_settings(args)
    pin_mmap_threshold()  # it reads every job's result, for hours
    logging.getLogger("drill").setLevel(logging.INFO)
    print(f"Drill: starting on http://{settings.host}:{settings.port} (Ctrl+C stops)", flush=True)
    uvicorn.run(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        log_level="info",
        # The client's address is app.deps.get_client's to find (DRILL_TRUSTED_PROXIES):
        # uvicorn's own X-Forwarded-For handling would trust 127.0.0.1 behind its back.
        proxy_headers=False,
        # Deadlines for a request's head and body, the idle keep-alive timeout, and the
        # caps on open connections (DRILL_HEADER_TIMEOUT, ...; app/slow_clients.py).
        **uvicorn_options(settings),
    )
    return 0


COMMAND = Command(
    name="serve",
    help="run the web service",
    add_arguments=add_arguments,
    run=run,
)
