# One image for the API, the workers, the scheduler, the migration job and flower; compose
# builds it once (service `migrate`) and every other service runs it by name.
# PYTHON_IMAGE: where no registry answers, deploy/base-images.sh builds a stand-in from Debian.
ARG PYTHON_IMAGE=python:3.11-slim
FROM ${PYTHON_IMAGE}

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    VIRTUAL_ENV=/opt/venv \
    PATH=/opt/venv/bin:$PATH \
    NUMBA_CACHE_DIR=/var/cache/numba \
    PUZZLE_CACHE_DIR=/var/cache/puzzle-queue

# A user with a home: gunicorn's control socket and celery's state files go there.
RUN useradd --create-home --home-dir /home/app --uid 10001 --user-group --shell /usr/sbin/nologin app

# The dependencies, exactly as locked, before any code: editing the code reuses this layer.
COPY requirements-image.lock /tmp/requirements-image.lock
RUN python3 -m venv /opt/venv \
    && pip install --require-hashes -r /tmp/requirements-image.lock

# The solvers alone next: the 15-puzzle pattern database (about a minute) and the compiled
# numba kernels depend on nothing else, so editing the service or the worker keeps them.
WORKDIR /app
COPY solvers ./solvers
RUN mkdir -p "$NUMBA_CACHE_DIR" "$PUZZLE_CACHE_DIR" \
    && python -m solvers.sliding.pdb build \
    && python -c "import solvers; solvers.warm_up()" \
    && chown -R app:app "$NUMBA_CACHE_DIR" "$PUZZLE_CACHE_DIR"

# Then the rest of the project (.dockerignore leaves out tests, the venv, caches and secrets).
COPY . .
# A lock older than pyproject.toml's dependencies fails the build (run `make lock`).
RUN python deploy/lock.py check \
    && pip install --no-deps --no-build-isolation -e .

USER app
EXPOSE 8000
CMD ["gunicorn", "--bind", "0.0.0.0:8000", "--threads", "8", "service:create_app()"]
