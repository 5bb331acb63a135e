"""The data store: settings, models, sessions, the rows' state machine, tallies, notices and publishing.

Shared by the API (service) and the workers (worker); it imports neither Flask nor Celery.
"""
