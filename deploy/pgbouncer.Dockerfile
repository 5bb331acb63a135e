# The stacks' `pgbouncer`: Debian's PgBouncer in transaction pooling between the API and workers
# and PostgreSQL (deploy/pgbouncer.ini; docs/deployment.md, PgBouncer). Built on the Python base
# every other service starts from (python:3.11-slim, or the Debian stand-in of
# deploy/base-images.sh), so it needs no other image.
ARG PYTHON_IMAGE=python:3.11-slim
FROM ${PYTHON_IMAGE}
RUN apt-get update \
    && apt-get install -y --no-install-recommends pgbouncer \
    && rm -rf /var/lib/apt/lists/* \
    && (id pgbouncer >/dev/null 2>&1 || useradd --system --uid 10002 --no-create-home --shell /usr/sbin/nologin pgbouncer) \
    && mkdir -p /etc/pgbouncer /var/run/pgbouncer \
    && chown -R pgbouncer /etc/pgbouncer /var/run/pgbouncer
COPY pgbouncer.ini /etc/pgbouncer/pgbouncer.ini
COPY pgbouncer-entrypoint.sh /usr/local/bin/
USER pgbouncer
EXPOSE 6432
ENTRYPOINT ["pgbouncer-entrypoint.sh"]
CMD ["pgbouncer", "/etc/pgbouncer/pgbouncer.ini"]
