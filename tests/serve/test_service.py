"""`narrator service install|uninstall|status`: the systemd unit passes `systemd-analyze verify` in both
scopes, and installing or uninstalling twice changes nothing the second time."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ANALYZE = shutil.which("systemd-analyze") or "/usr/bin/systemd-analyze"
pytestmark = pytest.mark.skipif(not Path(ANALYZE).exists(), reason="systemd-analyze is not installed")


def narrator(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NARRATOR_DATA_DIR": str(home / "data"), "NARRATOR_CONFIG_DIR": str(home / "config")}
    return subprocess.run([sys.executable, "-m", "narrator.cli.main", "service", *args], capture_output=True,
                          text=True, env=env, check=False)


def verify(unit: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([ANALYZE, "verify", str(unit)], capture_output=True, text=True, check=False)


@pytest.mark.parametrize("scope", ["user", "system"])
def test_the_unit_verifies_and_install_uninstall_are_idempotent(tmp_path: Path, scope: str) -> None:
    units = tmp_path / "units"
    where = ["--scope", scope, "--unit-dir", str(units), "--no-systemctl"]
    first = narrator(tmp_path, "install", *where)
    assert first.returncode == 0, first.stderr
    unit = units / "narrator.service"
    assert f"written: {unit}" in first.stdout
    text = unit.read_text(encoding="utf-8")
    checked = verify(unit)
    assert checked.returncode == 0 and str(unit) not in checked.stderr, checked.stderr
    assert f"ExecStart={sys.executable} -m narrator.cli.main serve" in text
    assert "Restart=on-failure" in text and "After=sound.target" in text
    assert "StandardOutput=null" in text  # the host's console (secret lines) never goes into the journal
    assert f'Environment="NARRATOR_CONFIG_DIR={tmp_path / "config"}"' in text  # the configured devices
    assert ("User=" in text) == (scope == "system")

    again = narrator(tmp_path, "install", *where)
    assert again.returncode == 0 and f"unchanged: {unit}" in again.stdout
    assert unit.read_text(encoding="utf-8") == text

    status = narrator(tmp_path, "status", *where)
    assert "(installed)" in status.stdout and "log: journalctl" in status.stdout

    gone = narrator(tmp_path, "uninstall", *where)
    assert gone.returncode == 0 and f"removed: {unit}" in gone.stdout and not unit.exists()
    twice = narrator(tmp_path, "uninstall", *where)
    assert twice.returncode == 0 and f"not installed: {unit}" in twice.stdout
    assert "(not installed)" in narrator(tmp_path, "status", *where).stdout


def test_a_broken_unit_is_what_verify_reports(tmp_path: Path) -> None:
    """The check above can fail: a key systemd does not know is reported on stderr."""
    unit = tmp_path / "narrator.service"
    unit.write_text("[Unit]\nDescription=x\n[Service]\nExecStart=/bin/true\nRestartt=always\n", encoding="utf-8")
    assert str(unit) in verify(unit).stderr
