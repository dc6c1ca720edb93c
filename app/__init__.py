"""The FastAPI service: settings, JSON API routers, HTML pages, the submission store."""
