"""The server side of a grade: the exercise catalog, the warm worker pools and how their
processes are isolated, jobs and their limits, reference observations, comparison,
verdicts and feedback. ``grader.Grader`` is where a Submit is graded."""
