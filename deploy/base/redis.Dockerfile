# Stand-in for redis:7: Debian 12's Redis 7.0, run as the redis user in /data, reachable from
# other containers (as the official image does, protected mode is off when no config is given).
ARG BASE
FROM ${BASE}
RUN apt-get update \
    && apt-get install -y --no-install-recommends redis-server \
    && rm -rf /var/lib/apt/lists/* \
    && mkdir /data && chown redis:redis /data
COPY redis-entrypoint.sh /usr/local/bin/
WORKDIR /data
VOLUME /data
EXPOSE 6379
ENTRYPOINT ["redis-entrypoint.sh"]
CMD ["redis-server"]
