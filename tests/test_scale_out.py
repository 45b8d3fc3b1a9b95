"""Replicas behind a real nginx, sharing a real PostgreSQL cluster (both from Debian's packages).

The runs use the engine-free plain runner: what is under test is the store, the balancer, fair
share and draining, not the engine.
"""

from __future__ import annotations

import concurrent.futures as cf
import os
import signal
import subprocess
import sys
import time

import httpx
import psycopg
import pytest

from server.launch import ServerProcess
from server.services import Nginx, PostgresCluster

PLAIN = "server.sandbox.plain_runner:run_request"
SLEEPY = "import time\ntime.sleep({})\nprint('slept')"


def replica_settings(url: str, **extra) -> dict:
    return {
        "runner": PLAIN,
        "database_url": url,
        "workers": 1,
        "queue_size": 8,
        "warm_examples": "false",
        "wall_seconds": 10,
        "trusted_proxies": '["127.0.0.1"]',
        "client_runs": 4,
        "client_rate": 5,
        "client_burst": 20,
        **extra,
    }


@pytest.fixture(scope="module")
def pg():
    with PostgresCluster() as cluster:
        yield cluster


@pytest.fixture(scope="module")
def replicas(pg, tmp_path_factory):
    logs = tmp_path_factory.mktemp("logs")
    servers = [ServerProcess(replica_settings(pg.url), log_path=str(logs / f"r{i}.log")) for i in range(2)]
    # Started together: both run the migrations at once, under the advisory lock.
    with cf.ThreadPoolExecutor(2) as ex:
        list(ex.map(lambda s: s.start(), servers))
    yield servers
    for s in servers:
        s.stop()


@pytest.fixture(scope="module")
def balancer(replicas):
    with Nginx([f"127.0.0.1:{s.port}" for s in replicas]) as n:
        yield n


def client_from(address: str, base_url: str, timeout: float = 60) -> httpx.Client:
    """A client on its own loopback address, so nginx (and fair share) see a distinct client."""
    return httpx.Client(
        base_url=base_url, timeout=timeout, transport=httpx.HTTPTransport(local_address=address)
    )


def run_body(code: str) -> dict:
    return {"code": code, "function": None, "stack": [], "args": []}


def test_migrations_ran_once_with_replicas_starting_together(pg, replicas):
    with psycopg.connect(pg.url) as conn:
        rows = conn.execute("SELECT version FROM schema_migrations ORDER BY version").fetchall()
    assert rows == [(1,)]


def test_a_link_made_on_one_replica_opens_on_the_other_and_through_the_balancer(replicas, balancer):
    a, b = replicas
    body = {"request": run_body("print('shared across replicas')"), "title": "scale"}
    ref = httpx.post(a.base_url + "/api/snippets", json=body).json()
    for base in (b.base_url, balancer.base_url):
        got = httpx.get(f"{base}/api/snippets/{ref['id']}")
        assert got.status_code == 200 and got.json()["request"]["code"] == body["request"]["code"]
        assert httpx.get(f"{base}/s/{ref['id']}").status_code == 200
    # Content-addressed: the same snippet stored through the other replica gets the same id.
    assert httpx.post(b.base_url + "/api/snippets", json=body).json()["id"] == ref["id"]


def test_the_same_ids_as_sqlite_and_a_copy_keeps_every_link(pg, tmp_path):
    from engine.inspect.schema import RunRequest
    from server.copy_store import copy
    from server.postgres_store import PostgresSnippetStore
    from server.store import SQLiteSnippetStore

    lite = SQLiteSnippetStore(tmp_path / "s.sqlite")
    made = [lite.put(RunRequest(code=f"print({i})"), f"t{i}", "0.1.0", 8) for i in range(5)]
    pgs = PostgresSnippetStore(pg.url)
    pgs.open()
    try:
        assert pgs.put(RunRequest(code="print(0)"), "t0", "0.1.0", 8).id == made[0].id
        copied, present = copy(lite, pgs)
        assert (copied, present) == (4, 1)
        # Copied rows are the same records; the one stored on both sides has its own time.
        assert all(pgs.get(s.id) == s for s in made[1:])
        assert pgs.get(made[0].id).model_dump(exclude={"created_at"}) == made[0].model_dump(
            exclude={"created_at"}
        )
        # The command line does the same, and repeating it changes nothing.
        out = subprocess.run(
            [sys.executable, "-m", "server.copy_store", str(tmp_path / "s.sqlite"), pg.url],
            capture_output=True,
            text=True,
            check=True,
        )
        assert "copied 0 snippets, 5 already present" in out.stderr
    finally:
        pgs.close()
        lite.close()


def test_readiness_is_for_load_balancers(replicas):
    for s in replicas:
        r = httpx.get(s.base_url + "/api/ready")
        assert r.status_code == 200 and r.json()["ready"] is True


def test_fifty_concurrent_clients_all_get_an_answer(balancer):
    def one(i: int):
        with client_from(f"127.0.1.{i + 1}", balancer.base_url) as c:
            r = c.post("/api/run", json=run_body(f"print({i} * 2)"))
            return i, r.status_code, (r.json() if r.status_code == 200 else r.headers.get("retry-after"))

    with cf.ThreadPoolExecutor(50) as ex:
        answers = list(ex.map(one, range(50)))
    ok = [a for a in answers if a[1] == 200]
    assert all(code in (200, 429, 503) for _, code, _ in answers), answers
    assert all(body["ok"] and body["stdout"].strip() == str(i * 2) for i, _, body in ok)
    assert all(retry is not None for _, code, retry in answers if code != 200)
    assert len(ok) >= 10, answers  # two replicas with a queue of 8 each serve a good share of them
    print(f"50 clients: {len(ok)} ran, {len(answers) - len(ok)} told to retry")


def test_a_greedy_client_gets_429_while_another_still_runs(balancer):
    def greedy(_):
        with client_from("127.0.2.1", balancer.base_url) as c:
            return c.post("/api/run", json=run_body(SLEEPY.format(0.5))).status_code

    with cf.ThreadPoolExecutor(12) as ex:
        flood = ex.map(greedy, range(12))
        time.sleep(0.3)
        with client_from("127.0.2.2", balancer.base_url) as polite:
            r = polite.post("/api/run", json=run_body("print('my turn')"))
        codes = list(flood)
    assert r.status_code == 200 and r.json()["stdout"].strip() == "my turn"
    assert codes.count(429) >= 2, codes  # at most client_runs (4) per replica in flight


def test_killing_a_replica_mid_run_loses_nothing(pg, tmp_path):
    servers = [
        ServerProcess(replica_settings(pg.url), log_path=str(tmp_path / f"k{i}.log")) for i in range(2)
    ]
    for s in servers:
        s.start()
    try:
        with Nginx([f"127.0.0.1:{s.port}" for s in servers]) as lb:
            ids = []
            for i in range(10):
                body = {"request": run_body(f"print('kept {i}')"), "title": None}
                ids.append(httpx.post(lb.base_url + "/api/snippets", json=body).json()["id"])

            def slow_run(i):
                with client_from(f"127.0.3.{i + 1}", lb.base_url) as c:
                    return c.post("/api/run", json=run_body(SLEEPY.format(1.0))).status_code

            with cf.ThreadPoolExecutor(4) as ex:
                running = ex.map(slow_run, range(4))
                time.sleep(0.5)  # both replicas are mid-run now
                os.killpg(servers[0].proc.pid, signal.SIGKILL)
                codes = list(running)
            # The balancer sent what the dead replica dropped to the live one.
            assert all(code in (200, 429) for code in codes), codes
            assert codes.count(200) >= 2, codes
            for snippet_id in ids:
                assert httpx.get(f"{lb.base_url}/api/snippets/{snippet_id}").status_code == 200
            r = httpx.post(lb.base_url + "/api/run", json=run_body("print('still serving')"))
            assert r.status_code == 200 and r.json()["ok"]
    finally:
        for s in servers:
            s.stop()


def test_sigterm_drains_finishing_runs_and_refusing_new_ones(pg, tmp_path):
    with ServerProcess(replica_settings(pg.url), log_path=str(tmp_path / "d.log")) as s:
        with cf.ThreadPoolExecutor(1) as ex:
            running = ex.submit(
                httpx.post, s.base_url + "/api/run", json=run_body(SLEEPY.format(1.5)), timeout=30
            )
            time.sleep(0.5)
            s.proc.send_signal(signal.SIGTERM)
            time.sleep(0.2)
            refused = httpx.post(s.base_url + "/api/run", json=run_body("print(1)"))
            ready = httpx.get(s.base_url + "/api/ready")
            finished = running.result()
        assert refused.status_code == 503 and refused.headers["retry-after"]
        assert ready.status_code == 503 and "draining" in ready.json()["reasons"]
        assert finished.status_code == 200 and finished.json()["stdout"].strip() == "slept"
        assert s.proc.wait(20) is not None
