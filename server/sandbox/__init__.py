"""Running untrusted code: a pool of zygote processes that fork one isolated child per run.

server (FastAPI)  --pipe-->  zygote (numpy + engine preloaded, single-threaded)  --fork-->  child
``pool`` lives in the server, ``zygote`` and ``supervise`` in the zygote, ``child``, ``isolation``
and ``seccomp`` in the forked child. Results travel back over pipes only.
"""
