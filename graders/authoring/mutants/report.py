"""What a run of a track's mutants found: the killed, the survivors (explained or not),
the skipped, and the warnings about ``mutants.toml``."""

from __future__ import annotations

from dataclasses import dataclass, field

from graders.authoring.mutants.explanations import EXPLANATIONS


@dataclass(frozen=True)
class Survivor:
    id: str
    diff: str
    reason: str | None  # its explanation in mutants.toml, if any

    def as_dict(self) -> dict[str, object]:
        return {"id": self.id, "diff": self.diff, "reason": self.reason}


@dataclass
class MutantReport:
    exercise: str
    track: str
    where: str  # the track's folder, relative to the exercises folder: "slug/numpy"
    mutants: int = 0
    killed: dict[str, list[str]] = field(default_factory=dict)  # id -> failing tests
    survivors: list[Survivor] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)  # id -> why it was not run
    stale: list[str] = field(default_factory=list)  # explained ids no mutant has
    unneeded: list[str] = field(default_factory=list)  # explained ids that are killed
    not_analysed: str | None = None  # why no mutant was run
    seconds: float = 0.0

    @property
    def explained(self) -> list[Survivor]:
        return [s for s in self.survivors if s.reason is not None]

    @property
    def unexplained(self) -> list[Survivor]:
        return [s for s in self.survivors if s.reason is None]

    @property
    def warnings(self) -> list[str]:
        file = f"{self.where}/{EXPLANATIONS}"
        return [
            *(f"{file}: explains {i!r}, but no such mutant exists (stale)" for i in self.stale),
            *(f"{file}: explains {i!r}, but a test kills it now" for i in self.unneeded),
        ]

    def as_dict(self) -> dict[str, object]:
        return {
            "mutants": self.mutants,
            "killed": self.killed,
            "survived": len(self.survivors),
            "explained": [s.as_dict() for s in self.explained],
            "unexplained": [s.as_dict() for s in self.unexplained],
            "skipped": self.skipped,
            "stale": self.stale,
            "unneeded": self.unneeded,
            "warnings": self.warnings,
            "not_analysed": self.not_analysed,
            "seconds": round(self.seconds, 1),
        }
