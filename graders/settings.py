"""The grading settings of Drill, from ``DRILL_*`` environment variables.

The web service adds its own (``app.settings.AppSettings``, a subclass); nothing else
reads ``os.environ``.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

ROOT = Path(__file__).resolve().parent.parent


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="DRILL_", extra="ignore")

    # Content and storage
    exercises_dir: Path = ROOT / "exercises"
    var_dir: Path = ROOT / "var"
    db: str = ""  # SQLite file path or SQLAlchemy URL; default var/drill.db

    # The sandbox
    sandbox: Literal["auto", "bwrap", "process"] = "auto"
    workers: int = Field(default_factory=lambda: os.cpu_count() or 2, ge=1, le=64)
    bwrap_path: str = "bwrap"
    worker_start_timeout: float = Field(120.0, gt=0)
    # A cgroup per worker and per job (pids.max, a memory limit): "auto" uses v2 where a
    # delegated subtree is writable, else v1, else none; "off" keeps the rlimits alone.
    cgroups: Literal["auto", "v2", "v1", "off"] = "auto"

    # Per-child limits (an exercise may lower or raise its own within the maxima)
    cpu_seconds: float = Field(5.0, gt=0, le=60)
    wall_seconds: float = Field(10.0, gt=0, le=120)
    memory_mb: int = Field(1024, ge=64, le=8192)
    processes: int = Field(64, ge=1, le=4096)
    output_bytes: int = Field(64 * 1024, ge=1024, le=16 * 1024 * 1024)
    result_mb: int = Field(64, ge=1, le=1024)

    # Grading queue: how long a job may wait for a worker before it is not graded.
    queue_wait_seconds: float = Field(20.0, gt=0)
    # Distributed mode: the NATS JetStream server that carries jobs to `drill worker`s
    # (nats://host:port). Empty: grade in this process's own pools.
    queue: str = ""
    queue_max_jobs: int = Field(1000, ge=1)  # jobs the stream holds; beyond it Submit is 503
    # A worker that stops acknowledging a job for this long is taken for dead and the job
    # goes to another (at most two deliveries in all).
    queue_ack_wait: float = Field(10.0, ge=1, le=300)
    # Watch exercises_dir and serve instructors' edits without a restart (drill serve --reload).
    reload: bool = False
    reload_interval: float = Field(1.0, gt=0, le=60)  # seconds between two looks at the folder

    @field_validator("exercises_dir", "var_dir")
    @classmethod
    def _absolute(cls, value: Path) -> Path:
        return value.expanduser().resolve()

    @property
    def cache_dir(self) -> Path:
        return self.var_dir / "cache"

    @property
    def database_url(self) -> str:
        if not self.db:
            return f"sqlite:///{self.var_dir / 'drill.db'}"
        if "://" in self.db:
            return self.db
        return f"sqlite:///{Path(self.db).expanduser().resolve()}"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
