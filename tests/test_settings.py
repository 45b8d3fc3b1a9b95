"""A mistyped setting stops the server with one line naming the variable, not a traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest
from pydantic import ValidationError

from conftest import ROOT
from server.settings import Settings, settings_problem


def test_sqlite_url_in_database_url_is_refused_with_what_to_set():
    with pytest.raises(ValidationError) as info:
        Settings(database_url="sqlite:///snippets.db")
    problem = settings_problem(info.value)
    assert "JAXPLAY_DATABASE_URL='sqlite:///snippets.db'" in problem
    assert "JAXPLAY_DATABASE_PATH" in problem


def test_postgres_urls_are_accepted():
    for url in ("postgresql://u:p@127.0.0.1/db", "postgres://127.0.0.1/db"):
        assert Settings(database_url=url).database_url == url


def test_server_exits_with_the_bad_variable_named(monkeypatch):
    env = {"PATH": "/usr/bin:/bin", "JAXPLAY_PORT": "eighty"}
    done = subprocess.run(
        [sys.executable, "-m", "server"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode != 0
    assert "JAXPLAY_PORT='eighty'" in done.stderr
    assert "Traceback" not in done.stderr


def test_host_and_port_flags_override_the_environment(monkeypatch):
    from server.__main__ import settings_from

    monkeypatch.setenv("JAXPLAY_PORT", "8001")
    assert settings_from([]).port == 8001
    assert settings_from(["--port", "9123"]).port == 9123
    assert settings_from(["--host", "127.0.0.2"]).host == "127.0.0.2"


def test_unknown_arguments_are_refused_not_ignored():
    done = subprocess.run(
        [sys.executable, "-m", "server", "--prot", "9000"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "unrecognized arguments: --prot 9000" in done.stderr


def test_help_lists_every_setting_as_its_variable():
    done = subprocess.run(
        [sys.executable, "-m", "server", "--help"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0
    for name in Settings.model_fields:
        assert f"JAXPLAY_{name.upper()}" in done.stdout
