"""The ``drill`` command, above both halves: ``graders`` (grading) and ``app`` (the web
service). Neither imports it."""
