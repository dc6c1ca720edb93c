"""``drill validate --mutants``: single-point mutants of a reference solution.

Each mutant changes the reference (``<track>/solution.py``) in exactly one place, the way
a learner's slip would: a comparison flipped, a constant off by one, a copy dropped, a
``with`` block removed, a keyword argument changed... It is graded like a submission
against the track's hidden tests. A mutant that fails a test is *killed*; one that
passes every hidden test *survives*. A survivor is not an error: it is either equivalent
to the reference (no test could kill it), or a behaviour the statement leaves open, or a
gap in the tests. The author kills it with a test or explains it in
``<track>/mutants.toml``.

- :mod:`.operators` makes the mutants of a source;
- :mod:`.explanations` reads ``mutants.toml``, the explained survivors;
- :mod:`.runner` grades each mutant on the hidden tests;
- :mod:`.report` is what a run found: the killed, the survivors, the warnings.
"""

from graders.authoring.mutants.explanations import load_explanations
from graders.authoring.mutants.operators import generate
from graders.authoring.mutants.report import MutantReport, Survivor
from graders.authoring.mutants.runner import analyse_track

__all__ = ["MutantReport", "Survivor", "analyse_track", "generate", "load_explanations"]
