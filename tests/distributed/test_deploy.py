"""compose.yaml and docs/deploy.md, checked against what the cluster tests run.

``tests/cluster.py`` spells out once how each role starts and what its environment holds,
and the cluster tests prove that this setup works. These tests keep the example deployment
and the guide in step with it. They start nothing: no container engine runs where Drill
is built, so compose.yaml is read here and never run.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from app.settings import AppSettings
from graders.queue.stream import STREAM
from tests.cluster import API_COMMAND, API_ENV, SHARED_ENV, WORKER_COMMAND, WORKER_ENV
from tests.services import NATS_MAX_PAYLOAD

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "compose.yaml"
GUIDE = ROOT / "docs" / "deploy.md"
DOCKERFILE = ROOT / "Dockerfile"

SETTINGS = {f"DRILL_{name.upper()}" for name in AppSettings.model_fields}
REQUIRED_API_ENV = ("DRILL_QUEUE", "DRILL_DB")
ROLES = ("learner", "reference")
# What bubblewrap needs inside a container (the README's "Running in a container").
SANDBOX_OPTIONS = {"seccomp=unconfined", "apparmor=unconfined", "systempaths=unconfined"}
CREDENTIAL_NAME = re.compile(r"PASSWORD|PASSWD|TOKEN|SECRET|CREDENTIAL|_KEY\b|_DB\b")
CREDENTIAL_VALUE = re.compile(r"postgres|://[^/@\s]*@")  # a database URL, a URL's user info
SIZE_UNITS = {"": 1, "KB": 2**10, "MB": 2**20, "GB": 2**30}  # as nats-server reads them


# --- reading compose.yaml ------------------------------------------------------------


def compose() -> dict[str, Any]:
    data = yaml.safe_load(COMPOSE.read_text())
    assert isinstance(data, dict) and isinstance(data.get("services"), dict)
    return data


def services() -> dict[str, dict[str, Any]]:
    return dict(compose()["services"])


def command(service: dict[str, Any]) -> list[str]:
    cmd = service.get("command", [])
    return shlex.split(cmd) if isinstance(cmd, str) else [str(word) for word in cmd]


def environment(service: dict[str, Any]) -> dict[str, str | None]:
    """A service's environment, in either of Compose's two forms (a mapping or a list)."""
    env = service.get("environment") or {}
    if isinstance(env, list):
        pairs = [entry.partition("=") for entry in env]
        return {key: value if sep else None for key, sep, value in pairs}
    return {str(key): None if value is None else str(value) for key, value in env.items()}


def drill_words(service: dict[str, Any]) -> list[str]:
    """The words after ``python -m`` of a service that runs Drill (or none)."""
    cmd = command(service)
    return cmd[2:] if cmd[:3] == ["python", "-m", "drill"] else []


def api_services() -> dict[str, dict[str, Any]]:
    return {n: s for n, s in services().items() if drill_words(s)[:2] == API_COMMAND[:2]}


def worker_services() -> dict[str, dict[str, Any]]:
    return {n: s for n, s in services().items() if drill_words(s)[:2] == WORKER_COMMAND[:2]}


def the_service(image: str) -> tuple[str, dict[str, Any]]:
    """The one service that runs ``image`` (any tag)."""
    found = [(n, s) for n, s in services().items() if str(s.get("image")).split(":")[0] == image]
    assert len(found) == 1, f"expected one {image} service, found {[n for n, _ in found]}"
    return found[0]


def split_options(words: list[str]) -> tuple[list[str], dict[str, str]]:
    """The words before the first ``--option`` and the options with their values."""
    head: list[str] = []
    options: dict[str, str] = {}
    rest = iter(words)
    for word in rest:
        if word.startswith("--"):
            options[word] = next(rest, "")
        elif options:
            raise AssertionError(f"a positional word {word!r} after the options in {words}")
        else:
            head.append(word)
    return head, options


def nats_size(text: str) -> int:
    match = re.fullmatch(r"(\d+)\s*([KMG]B)?", text.strip(), re.IGNORECASE)
    assert match, f"not a size nats-server reads: {text!r}"
    return int(match[1]) * SIZE_UNITS[(match[2] or "").upper()]


def nats_config(text: str) -> dict[str, Any]:
    """What these tests need from a nats-server configuration: max_payload and the
    JetStream block's store_dir (a minimal reader, not a parser of the whole format)."""
    text = re.sub(r"(#|//).*", "", text)
    payload = re.findall(r"^\s*max_payload\s*[:=]?\s*(\S+)\s*$", text, re.MULTILINE)
    block = re.search(r"^\s*jetstream\s*[:=]?\s*\{(.*?)\}", text, re.MULTILINE | re.DOTALL)
    store = re.search(r"store_dir\s*[:=]?\s*\"?([^\"\s]+)", block[1]) if block else None
    return {
        "max_payload": [nats_size(p) for p in payload],
        "jetstream": block is not None,
        "store_dir": store[1] if store else None,
    }


def volume_targets(service: dict[str, Any]) -> set[str]:
    targets = set()
    for volume in service.get("volumes", []):
        if isinstance(volume, dict):
            targets.add(str(volume.get("target", "")))
        else:
            parts = str(volume).split(":")
            if len(parts) >= 2:  # a named or host volume, not an anonymous one
                targets.add(parts[1])
    return targets


def exposed_port() -> str:
    match = re.search(r"^EXPOSE\s+(\d+)\s*$", DOCKERFILE.read_text(), re.MULTILINE)
    assert match, "the Dockerfile exposes no port"
    return match[1]


# --- compose.yaml --------------------------------------------------------------------


def test_the_api_services_run_the_api_command_of_the_cluster_tests() -> None:
    """``python -m`` and the words of API_COMMAND; only the listening address differs
    (all interfaces in a container), plus the port the image exposes and health-checks."""
    apis = api_services()
    assert len(apis) >= 2, f"compose.yaml should show several API nodes: {sorted(apis)}"
    expected_words, expected_options = split_options(API_COMMAND)
    for name, service in apis.items():
        words, options = split_options(drill_words(service))
        assert words == expected_words, name
        assert set(options) == {*expected_options, "--port"}, (name, options)
        assert options["--host"] == "0.0.0.0", name
        assert options["--port"] == exposed_port(), name


def test_the_worker_services_run_the_worker_command_of_the_cluster_tests() -> None:
    workers = worker_services()
    roles = {}
    for name, service in workers.items():
        cmd = command(service)
        assert cmd[:-1] == ["python", "-m", *WORKER_COMMAND], (name, cmd)
        assert cmd[-1] in ROLES, (name, cmd)
        roles[name] = cmd[-1]
    assert sorted(set(roles.values())) == sorted(ROLES), roles
    assert list(roles.values()).count("learner") >= 2, f"several learner workers: {roles}"


def test_an_api_service_sets_only_api_and_shared_settings_and_the_required_ones() -> None:
    allowed = {*API_ENV, *SHARED_ENV}
    for name, service in api_services().items():
        env = environment(service)
        assert set(env) <= allowed, f"{name} sets {sorted(set(env) - allowed)}"
        missing = [key for key in REQUIRED_API_ENV if not env.get(key)]
        assert not missing, f"{name} does not set {missing}"
        assert "env_file" not in service, f"{name}: settings hidden in an env_file"


def test_a_worker_sets_only_worker_and_shared_settings_and_no_credential() -> None:
    allowed = {*WORKER_ENV, *SHARED_ENV}
    for name, service in worker_services().items():
        env = environment(service)
        assert set(env) <= allowed, f"{name} sets {sorted(set(env) - allowed)}"
        assert "DRILL_DB" not in env, name
        assert not [key for key in env if CREDENTIAL_NAME.search(key)], (name, env)
        assert not [v for v in env.values() if v and CREDENTIAL_VALUE.search(v)], (name, env)
        assert env.get("DRILL_SANDBOX") == "bwrap", f"{name} must refuse to run unsandboxed"
        assert not {"env_file", "secrets"} & set(service), f"{name} gets files of settings"


def test_every_drill_service_names_one_broker_and_the_same_shared_settings() -> None:
    """Each node applies these to the stream and its consumers, or stamps jobs with them:
    every node sets every one of them, to one value."""
    drill = {**api_services(), **worker_services()}
    nats_name, _ = the_service("nats")
    for key in ("DRILL_QUEUE", *SHARED_ENV):
        values = {name: environment(service).get(key) for name, service in drill.items()}
        assert None not in values.values(), f"{key} unset in {values}"
        assert len(set(values.values())) == 1, f"{key} differs: {values}"
    queue = urlsplit(environment(next(iter(drill.values())))["DRILL_QUEUE"] or "")
    assert (queue.scheme, queue.hostname) == ("nats", nats_name), queue


def test_the_api_nodes_use_the_postgres_service() -> None:
    pg_name, postgres = the_service("postgres")
    assert str(postgres["image"]).split(":")[1].split(".")[0] == "15", "the tested version"
    assert "test" in postgres.get("healthcheck", {}), "API nodes wait for a healthy database"
    assert "/var/lib/postgresql/data" in volume_targets(postgres)
    for name, service in api_services().items():
        url = environment(service)["DRILL_DB"] or ""
        assert url.startswith("postgresql+psycopg://"), (name, url)
        assert f"@{pg_name}:" in url, (name, url)
        depends = service.get("depends_on", {})
        assert isinstance(depends, dict), f"{name}: depends_on must say to wait for health"
        condition = depends.get(pg_name, {}).get("condition")
        assert condition == "service_healthy", name


def test_workers_get_what_bubblewrap_needs_and_api_nodes_nothing() -> None:
    for name, service in worker_services().items():
        assert set(service.get("security_opt", [])) >= SANDBOX_OPTIONS, name
    for name, service in {**api_services(), **worker_services()}.items():
        assert not service.get("privileged"), name
        assert not service.get("cap_add"), name  # bwrap needs no added capability
    for name, service in api_services().items():
        assert not service.get("security_opt"), f"{name} starts no sandbox: keep the defaults"


def test_the_broker_runs_jetstream_on_a_volume_with_the_tests_max_payload() -> None:
    _, nats = the_service("nats")
    cmd = command(nats)
    flags = [i for i, word in enumerate(cmd) if word in ("-c", "--config")]
    assert len(flags) == 1 and flags[0] + 1 < len(cmd), f"no configuration file in {cmd}"
    path = cmd[flags[0] + 1]
    mounted = [
        c["source"] for c in nats.get("configs", []) if c.get("target", f"/{c['source']}") == path
    ]
    assert len(mounted) == 1, f"{path} is not one of the service's configs"
    config = nats_config(compose()["configs"][mounted[0]]["content"])
    assert config["max_payload"] == [NATS_MAX_PAYLOAD], config
    assert config["jetstream"] or "-js" in cmd or "--jetstream" in cmd, "JetStream is off"
    assert config["store_dir"] in volume_targets(nats), "the file store must be on a volume"


# --- docs/deploy.md ------------------------------------------------------------------


def guide() -> str:
    return GUIDE.read_text()


def test_the_roles_environments_are_settings() -> None:
    assert set(API_ENV) | set(WORKER_ENV) | set(SHARED_ENV) <= SETTINGS


def test_every_drill_variable_the_guide_names_is_a_setting() -> None:
    named = set(re.findall(r"\bDRILL_[A-Z0-9_]*[A-Z0-9]\b", guide())) - {STREAM}
    assert named, "the guide names no setting"
    assert not named - SETTINGS, f"not settings: {sorted(named - SETTINGS)}"


@pytest.mark.parametrize("name", sorted({*API_ENV, *WORKER_ENV, *SHARED_ENV}))
def test_the_guide_documents_each_setting_of_the_roles_in_a_table(name: str) -> None:
    rows = [line for line in guide().splitlines() if line.startswith("|")]
    first_cells = [row.split("|")[1] for row in rows if row.count("|") >= 3]
    assert any(f"`{name}`" in cell for cell in first_cells), f"{name} has no row of its own"


def test_the_guide_gives_the_broker_the_tests_max_payload() -> None:
    blocks = re.findall(r"```[^\n]*\n(.*?)```", guide(), re.DOTALL)
    payloads = [size for block in blocks for size in nats_config(block)["max_payload"]]
    assert payloads, "the guide shows no nats-server configuration"
    assert set(payloads) == {NATS_MAX_PAYLOAD}, payloads
