"""`narrator service install|uninstall|status`: the systemd unit passes `systemd-analyze verify` in both
scopes, and installing or uninstalling twice changes nothing the second time; a system unit installed with sudo
runs as the owner who called sudo, with the owner's sound server and folders, never as root by default."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from narrator.serve.service import sound_server_units

ANALYZE = shutil.which("systemd-analyze") or "/usr/bin/systemd-analyze"
pytestmark = pytest.mark.skipif(not Path(ANALYZE).exists(), reason="systemd-analyze is not installed")


def narrator(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NARRATOR_DATA_DIR": str(home / "data"), "NARRATOR_CONFIG_DIR": str(home / "config")}
    env.pop("SUDO_USER", None)
    return subprocess.run([sys.executable, "-m", "narrator.cli.main", "service", *args], capture_output=True,
                          text=True, env=env, check=False)


def verify(unit: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([ANALYZE, "verify", str(unit)], capture_output=True, text=True, check=False)


@pytest.mark.parametrize("scope", ["user", "system"])
def test_the_unit_verifies_and_install_uninstall_are_idempotent(tmp_path: Path, scope: str) -> None:
    units = tmp_path / "units"
    me = pwd.getpwuid(os.getuid())
    where = ["--scope", scope, "--unit-dir", str(units), "--no-systemctl",
             *(["--user", me.pw_name] if scope == "system" else [])]
    first = narrator(tmp_path, "install", *where)
    assert first.returncode == 0, first.stderr
    unit = units / "narrator.service"
    assert f"written: {unit}" in first.stdout
    text = unit.read_text(encoding="utf-8")
    checked = verify(unit)
    assert checked.returncode == 0 and str(unit) not in checked.stderr, checked.stderr
    assert f"ExecStart={sys.executable} -m narrator.cli.main serve" in text
    assert "Restart=on-failure" in text
    assert "StandardOutput=null" in text  # the host's console (secret lines) never goes into the journal
    assert f'Environment="NARRATOR_CONFIG_DIR={tmp_path / "config"}"' in text  # the configured devices
    assert ("User=" in text) == (scope == "system")
    assert "Type=notify" in text and "WatchdogSec=30" in text  # readiness and liveness told by `serve`
    assert "SuccessExitStatus=130 143" in text  # systemctl stop (SIGTERM) and Ctrl-C are clean stops
    keys = dict(line.split("=", 1) for line in text.splitlines() if line.startswith(("Wants=", "After=")))
    wants, after = keys.get("Wants", "").split(), keys.get("After", "").split()
    assert set(wants) <= set(after)  # every unit wanted is also waited for
    if scope == "system":  # the owner's service manager, which runs the owner's sound server
        assert f"user@{me.pw_uid}.service" in wants and f"XDG_RUNTIME_DIR=/run/user/{me.pw_uid}" in text
    else:  # the user's own sound server, as installed here (PipeWire's or PulseAudio's sockets)
        assert (wants, after) == sound_server_units()
    assert "lingering:" in first.stdout or "enable-linger" in first.stdout

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


def a_user() -> pwd.struct_passwd:
    """A user of this machine other than root (every Debian has `nobody`)."""
    users = [u for u in pwd.getpwall() if u.pw_uid >= 1000 and u.pw_name != "nobody"]
    return users[0] if users else pwd.getpwnam("nobody")


@pytest.mark.skipif(os.geteuid() != 0, reason="installs as root, as `sudo narrator service install` does")
def test_sudo_installs_the_unit_for_the_owner_who_called_it(tmp_path: Path) -> None:
    owner = a_user()
    units = tmp_path / "units"
    where = ["--scope", "system", "--unit-dir", str(units), "--no-systemctl"]
    env = {k: v for k, v in os.environ.items() if k not in ("NARRATOR_DATA_DIR", "NARRATOR_CONFIG_DIR")}
    done = subprocess.run([sys.executable, "-m", "narrator.cli.main", "service", "install", *where],
                          capture_output=True, text=True, env={**env, "SUDO_USER": owner.pw_name}, check=False)
    assert done.returncode == 0, done.stderr
    assert f"owner: {owner.pw_name} (uid {owner.pw_uid})" in done.stdout
    text = (units / "narrator.service").read_text(encoding="utf-8")
    assert f"User={owner.pw_name}\n" in text and "User=root" not in text
    assert f"XDG_RUNTIME_DIR=/run/user/{owner.pw_uid}" in text and "/run/user/0" not in text
    assert f"NARRATOR_CONFIG_DIR={owner.pw_dir}/.config/narrator" in text  # the owner's setup, not root's
    assert f"NARRATOR_DATA_DIR={owner.pw_dir}/.local/share/narrator" in text
    assert "SupplementaryGroups=audio input" in text  # the sound card and the USB keypad
    checked = verify(units / "narrator.service")
    assert checked.returncode == 0, checked.stderr

    # root without SUDO_USER and without --user: refused, with the fix; an unknown owner too
    alone = subprocess.run([sys.executable, "-m", "narrator.cli.main", "service", "install", *where],
                           capture_output=True, text=True, env=env, check=False)
    assert alone.returncode == 2 and "--user NAME" in alone.stderr
    unknown = subprocess.run([sys.executable, "-m", "narrator.cli.main", "service", "install", *where,
                              "--user", "no-such-user-here"], capture_output=True, text=True, env=env, check=False)
    assert unknown.returncode == 2 and "no such user" in unknown.stderr
    # a user unit is its user's own: not installed with sudo for someone else
    user_scope = subprocess.run([sys.executable, "-m", "narrator.cli.main", "service", "install", "--unit-dir",
                                 str(units), "--no-systemctl"], capture_output=True, text=True,
                                env={**env, "SUDO_USER": owner.pw_name}, check=False)
    assert user_scope.returncode == 2 and "without sudo" in user_scope.stderr
