"""The instructor's tools: ``validate`` proves an exercise against its alternatives and
wrong solutions, ``mutants`` grades single-point mutants of its reference, ``scaffold``
writes a new exercise's files."""
