"""One router per resource: exercises, submissions, drafts, health, and the HTML pages."""
