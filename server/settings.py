"""All server configuration in one place.

Every field can be set from the environment with the ``JAXPLAY_`` prefix, e.g.
``JAXPLAY_PORT=9000`` or ``JAXPLAY_WALL_SECONDS=5``. Sizes are in bytes, times in seconds.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal, Optional

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT_ROOT = Path(__file__).resolve().parent.parent

MiB = 1024 * 1024
GiB = 1024 * MiB


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="JAXPLAY_", env_nested_delimiter="__")

    # --- HTTP -------------------------------------------------------------------------------
    host: str = Field("127.0.0.1", description="Interface to bind; loopback unless you mean to expose it.")
    port: int = Field(8000, description="TCP port.")
    body_limit: int = Field(256 * 1024, description="Largest accepted request body; larger ones get 413.")
    web_dist: Path = Field(
        PROJECT_ROOT / "web" / "dist", description="Built web page, served at / when present."
    )

    # --- storage ----------------------------------------------------------------------------
    database_path: Path = Field(
        Path("./data/snippets.sqlite"), description="SQLite file for shared snippets; created on first use."
    )
    database_url: Optional[str] = Field(
        None,
        description="postgresql://user:pass@host/db: store snippets in PostgreSQL (needed by several "
        "replicas) instead of the SQLite file. Migrations run on start.",
    )
    database_pool_size: int = Field(4, description="PostgreSQL connections per replica.")
    database_connect_timeout: float = Field(
        30.0, description="How long a starting replica waits for PostgreSQL before giving up."
    )

    # --- fair share and draining --------------------------------------------------------------
    client_runs: int = Field(
        4,
        description="Runs one client may have running or queued at once (per replica); more get 429. "
        "Keep it below workers + queue_size so one client cannot fill the queue.",
    )
    client_rate: float = Field(
        5.0, description="Sustained runs per second one client may start (token bucket)."
    )
    client_burst: int = Field(20, description="Runs one client may start at once before the rate applies.")
    client_share_rate: float = Field(
        0.5,
        description="Sustained shared links per second one client may store (token bucket): each is "
        "a row of up to body_limit bytes, kept for good, so an unlimited client could fill the disk.",
    )
    client_share_burst: int = Field(30, description="Shared links one client may store at once.")
    trusted_proxies: list[str] = Field(
        default_factory=list,
        description="Addresses or CIDR ranges of reverse proxies whose client_ip_header names the client "
        '(e.g. ["127.0.0.1"] behind a local nginx). Others are identified by their own address.',
    )
    client_ip_header: str = Field(
        "X-Real-IP", description="Header a trusted proxy sets to the client address."
    )
    client_connections: int = Field(
        32,
        description="Connections one client (address; IPv6 /64) may hold open; more are answered 429 and "
        "closed. A trusted proxy's are not counted.",
    )
    header_seconds: float = Field(
        10.0,
        description="Time a client has to send a request's line and headers (from connecting, or from "
        "the previous response); then 408 and the connection closes.",
    )
    body_seconds: float = Field(
        30.0, description="Time a client has to send a request's body once its headers are in; then 408."
    )
    send_seconds: float = Field(
        30.0,
        description="Time a response may wait for the client to take any more of it (a client that stops "
        "reading); then the connection is reset and what it held is freed.",
    )
    unsent_bytes: int = Field(
        128 * MiB,
        description="Bytes of responses written but not yet taken by their clients, summed over all "
        "connections; past it the connections whose unsent output has waited longest are reset.",
    )
    drain_seconds: float = Field(
        30.0,
        description="On SIGTERM, how long to let running runs finish (refusing new ones) before exiting.",
    )

    # --- limits for one run ---------------------------------------------------------------------
    wall_seconds: float = Field(10.0, description="Wall-clock deadline of one run.")
    cpu_seconds: int = Field(8, description="CPU time of one run (RLIMIT_CPU, per process).")
    memory_bytes: int = Field(
        2 * GiB,
        description="Memory of one run: RLIMIT_DATA per process and the "
        "proportional set size summed over its processes.",
    )
    output_bytes: int = Field(1 * MiB, description="stdout + stderr of one run.")
    code_bytes: int = Field(64 * 1024, description="Largest accepted source code (UTF-8 bytes).")
    report_bytes: int = Field(32 * MiB, description="Largest run report accepted back from a sandbox.")
    process_limit: int = Field(64, description="Processes per run (RLIMIT_NPROC under a per-slot uid).")
    open_files: int = Field(512, description="Open descriptors per process (RLIMIT_NOFILE).")
    file_bytes: int = Field(64 * MiB, description="Largest file a run may write (RLIMIT_FSIZE).")
    tmp_bytes: int = Field(
        128 * MiB, description="Size of the private /tmp of a run (tmpfs, when namespaces apply)."
    )

    # --- the worker pool ------------------------------------------------------------------------
    workers: int = Field(2, description="Zygote processes, i.e. runs executing at once.")
    queue_size: int = Field(8, description="Runs allowed to wait for a worker; beyond that 429.")
    queue_timeout: float = Field(15.0, description="Longest wait for a worker before 503.")
    runner: str = Field(
        "engine.inspect:run_request",
        description="Dotted path 'module:function' taking a RunRequest, returning a RunReport; "
        "imported in the zygote before any fork.",
    )
    preload: list[str] = Field(
        # engine.stablehlo: a report prints every jit stage's StableHLO (30 ms to import per run);
        # ml_dtypes: the engine imports it when a program names bfloat16 and the like (0.8 s);
        # numpy.ma: numba's typeof of an array imports it when a jitted call first compiles or
        # loads its kernels (15 ms of CPU in each such run, unless the zygote's warm-up did)
        default_factory=lambda: [
            "numpy",
            "numpy.ma",
            "engine",
            "engine.numpy",
            "engine.stablehlo",
            "ml_dtypes",
        ],
        description="Modules imported by each zygote before forking (missing ones are skipped).",
    )
    isolation: Literal["auto", "root", "uid", "unsafe-single-user"] = Field(
        "auto",
        description="auto: root, else uid; refuses to start if neither is possible (root: network+mount "
        "namespaces and a per-slot uid; uid: a per-slot uid without namespaces, what the Docker image "
        "uses; unsafe-single-user: runs share the server's uid, with user+network+mount namespaces "
        "where allowed, for one trusted user only).",
    )
    slot_uid_base: int = Field(
        61000,
        description="Slot i runs under uid/gid slot_uid_base + i and its compile service's compiles under "
        "slot_uid_base + 1000 + i (root and uid modes); no other process, and no other jaxplay instance "
        "on the host, may use these uids.",
    )
    kernel_cache_dir: Path = Field(
        # Not the engine's own cache (ENGINE_CACHE_DIR): zygotes seal this one with a manifest and
        # delete whatever they did not write, which would pull files from under another process.
        Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "jaxplay-server-kernels",
        description="Where zygotes keep compiled gallery kernels between server starts, and (under "
        "shared/) the kernel compile service its kernels for runs (runs cannot write either).",
    )
    kernel_service: bool = Field(
        True,
        description="Each zygote forks a compile service: runs send it the programs they compile (as "
        "data), it compiles them into the kernel cache, and later runs of the same code load them.",
    )
    warm_examples: bool = Field(
        True,
        description="Each zygote runs the gallery examples once before "
        "forking, so their kernels are compiled (or loaded from "
        "the disk cache) once, not in every run.",
    )
    device_count: int = Field(
        8, description="Simulated devices offered to runs (exported as JAXPLAY_DEVICE_COUNT)."
    )
    nice: int = Field(10, description="Scheduling niceness of runs, so the server stays responsive.")
    sandbox_env: dict[str, str] = Field(
        default_factory=dict,
        description="Extra environment variables for runs (everything else is scrubbed).",
    )
    hidden_paths: list[Path] = Field(
        default_factory=list,
        description="Extra paths made invisible to runs (server sources, the database "
        "directory and .git are always hidden when mount namespaces apply).",
    )
    sandbox_tmp: Path = Field(
        Path("/tmp/jaxplay-sandbox"),
        description="Parent of per-run directories when no private /tmp can be mounted.",
    )

    @field_validator("database_url")
    @classmethod
    def _postgres_only(cls, url: Optional[str]) -> Optional[str]:
        # psycopg's own message for a SQLite URL ("missing '=' after ...") does not say what to set.
        if url and not url.startswith(("postgresql://", "postgres://")):
            raise ValueError(
                "must be a postgresql:// URL; for a SQLite file set JAXPLAY_DATABASE_PATH instead"
            )
        return url


def settings_problem(error: ValidationError) -> str:
    """One line per bad variable, named as the user set it (``JAXPLAY_PORT: ...``)."""
    lines = []
    for e in error.errors():
        name = "JAXPLAY_" + "__".join(str(part) for part in e["loc"]).upper()
        lines.append(f"{name}={e.get('input')!r}: {e['msg']}")
    return "bad configuration:\n  " + "\n  ".join(lines)


def get_settings() -> Settings:
    return Settings()
