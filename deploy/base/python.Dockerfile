# Stand-in for python:3.11-slim: Debian 12's Python 3.11 with venv, and gdbm as that image has
# (celery beat's schedule is a shelve: with gdbm it reaches the disk at each sync).
ARG BASE
FROM ${BASE}
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 python3-venv python3-gdbm \
    && rm -rf /var/lib/apt/lists/* \
    && ln -s /usr/bin/python3 /usr/local/bin/python
CMD ["python3"]
