"""The workers: Celery tasks that load puzzles by id, run the solvers and write back through the store.

``celery -A worker.app worker`` starts one (worker.app is the Celery app).
"""
