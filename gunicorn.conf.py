"""gunicorn settings read by every way the API is served here (gunicorn loads ./gunicorn.conf.py
from its working directory: the image's /app, `make run`, the benchmarks)."""

import gc


def post_worker_init(worker: object) -> None:
    """Everything the app holds once loaded (Flask, SQLAlchemy, pydantic, numba: about 200,000
    objects) is moved out of the collector's sight. A full collection otherwise walks them all,
    and a 1,000-puzzle POST, which makes thousands of objects, set one off every few requests:
    0.1-0.4 s each, measured in process, the tail of every POST that met one."""
    gc.freeze()
