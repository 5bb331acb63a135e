# One image for the API, the workers, the migration job and flower.
# Not built on the development machines (no Docker engine there).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    NUMBA_CACHE_DIR=/var/cache/numba \
    PUZZLE_CACHE_DIR=/var/cache/puzzle-queue

WORKDIR /app
COPY pyproject.toml README.md ./
COPY solvers ./solvers
COPY service ./service
COPY worker ./worker
RUN pip install --no-cache-dir . flower
COPY migrations ./migrations
COPY alembic.ini ./

# Compile the numba kernels into the image, so that no worker pays for it at start-up.
RUN mkdir -p "$NUMBA_CACHE_DIR" "$PUZZLE_CACHE_DIR" \
    && python -c "import solvers; solvers.warm_up()" \
    && chown -R nobody "$NUMBA_CACHE_DIR" "$PUZZLE_CACHE_DIR"
USER nobody

EXPOSE 8000
CMD ["gunicorn", "--bind", "0.0.0.0:8000", "service:create_app()"]
