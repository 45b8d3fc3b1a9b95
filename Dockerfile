# jaxplay, self-hosted. Build and run (see README, "Self-hosting"):
#   docker build --network host -t jaxplay .
#   docker run -d --name jaxplay --network host -v jaxplay-data:/data --restart unless-stopped jaxplay
# Needs only debian:bookworm-slim, Debian's packages, PyPI and the npm registry.
ARG BASE=debian:bookworm-slim

# ---- 1. the web page: Node 18 and npm from Debian (Vite 6 supports Node ^18) ----------------------
FROM ${BASE} AS web
ENV DEBIAN_FRONTEND=noninteractive
RUN apt-get update -q \
 && apt-get install -y -q --no-install-recommends nodejs npm ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src/web
COPY web/package.json web/package-lock.json ./
RUN npm ci --no-audit --no-fund --loglevel=error
COPY web/ ./
RUN npm run build

# ---- 2. the Python environment: a venv with the project installed (no compilers needed) ---------
FROM ${BASE} AS python
ENV DEBIAN_FRONTEND=noninteractive PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
RUN apt-get update -q \
 && apt-get install -y -q --no-install-recommends python3 python3-venv ca-certificates \
 && rm -rf /var/lib/apt/lists/*
RUN python3 -m venv /opt/venv
# Dependencies first (exact versions and hashes from the lock), so a source change does not reinstall them.
COPY pyproject.toml requirements.lock /src/
RUN /opt/venv/bin/pip install -q --require-hashes -r /src/requirements.lock
COPY engine /src/engine
COPY server /src/server
RUN /opt/venv/bin/pip install -q --no-deps /src \
 && /opt/venv/bin/pip uninstall -q -y pip setuptools \
 && /opt/venv/bin/python -c "import engine, server.main, numba; print('jaxplay', engine.__version__, 'numba', numba.__version__)"

# ---- 3. the runtime: Python, the venv, the built page; no compilers, no Node -------------------------
FROM ${BASE}
ENV DEBIAN_FRONTEND=noninteractive
RUN apt-get update -q \
 && apt-get install -y -q --no-install-recommends python3 tini \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/* /var/log/apt /var/log/dpkg.log \
 && groupadd --gid 10001 jaxplay \
 && useradd --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin jaxplay \
 && mkdir -p /data /var/cache/jaxplay && chown 10001:10001 /data /var/cache/jaxplay && chmod 0750 /data \
 && find / -xdev -type f -perm /6000 -exec chmod ug-s {} +
COPY --from=python /opt/venv /opt/venv
COPY --from=web /src/web/dist /opt/jaxplay/web
COPY docker/entrypoint.py docker/healthcheck.py /opt/jaxplay/
# The server's own code is for uid 10001 (group) alone: runs, under their slot uids, read only the
# engine's, which zygotes have preloaded anyway.
RUN server=$(/opt/venv/bin/python -c 'import os, server; print(os.path.dirname(server.__file__))') \
 && chown -R root:10001 "$server" && chmod -R o-rwx "$server"
ENV PATH=/opt/venv/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PYTHONUNBUFFERED=1 \
    JAXPLAY_HOST=0.0.0.0 \
    JAXPLAY_PORT=8000 \
    JAXPLAY_DATABASE_PATH=/data/snippets.sqlite \
    JAXPLAY_WEB_DIST=/opt/jaxplay/web \
    JAXPLAY_KERNEL_CACHE_DIR=/var/cache/jaxplay
USER 10001:10001
# Compile the gallery's kernels into the zygotes' kernel cache now, so that each zygote loads them
# at start instead of compiling (numba's cache is per CPU model: elsewhere they compile once there),
# and seal them: zygotes load only files whose hash the manifest written here (or by them) records.
RUN ENGINE_CACHE_DIR=/var/cache/jaxplay NUMBA_CACHE_DIR=/var/cache/jaxplay/numba HOME=/nonexistent \
    JAXPLAY_DEVICE_COUNT=8 NUMBA_THREADING_LAYER=workqueue python -m server.warmup
# Started as root: the entrypoint drops to uid 10001 keeping CAP_SETUID, CAP_SETGID, CAP_KILL and
# CAP_CHOWN, so that each run gets a uid of its own with Docker's default flags ("uid" isolation).
USER 0:0
WORKDIR /data
VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 CMD ["setpriv", "--reuid=10001", "--regid=10001", "--clear-groups", "--inh-caps=-all", "python", "/opt/jaxplay/healthcheck.py"]
ENTRYPOINT ["python", "/opt/jaxplay/entrypoint.py"]
