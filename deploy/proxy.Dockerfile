# The compose stack's `proxy`: Debian's nginx with deploy/nginx.conf, in front of the API.
# Built on the Python base every other service starts from (python:3.11-slim, or the Debian
# stand-in of deploy/base-images.sh), so it needs no other image, and its healthcheck has Python.
ARG PYTHON_IMAGE=python:3.11-slim
FROM ${PYTHON_IMAGE}
RUN apt-get update \
    && apt-get install -y --no-install-recommends nginx \
    && rm -rf /var/lib/apt/lists/*
COPY nginx.conf /etc/nginx/nginx.conf
EXPOSE 8000
# In the foreground, so that docker sees it stop; SIGQUIT finishes the requests in flight.
STOPSIGNAL SIGQUIT
CMD ["nginx", "-g", "daemon off;"]
