"""`narrator service install|uninstall|status`: a systemd unit that runs `narrator serve` at boot.

The unit starts after the sound system, restarts `serve` when it fails (not after 关机: that exits 0), and
pins the config and data folders of the user who installed it, so `serve` uses the devices `narrator setup`
configured. Two scopes:

* **user** (default): ~/.config/systemd/user/narrator.service, started with the user's session (enable
  lingering — `loginctl enable-linger` — to start it at boot without a login); the user's PulseAudio or
  PipeWire is right there.
* **system**: /etc/systemd/system/narrator.service, run as that user (`User=`), with the user's runtime
  folder so the sound server is found; needs root to install.

Install and uninstall are idempotent: installing the same unit again changes nothing, uninstalling what is
not installed says so. `systemctl` is called when it is there (daemon-reload, enable --now / disable --now);
without it (a container, a build machine) the unit is still written and the commands to run are printed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from narrator.paths import config_path, data_dir

UNIT = "narrator.service"
Scope = Literal["user", "system"]


@dataclass(frozen=True)
class Service:
    scope: Scope = "user"
    unit_dir: Path | None = None
    """Where the unit goes (default: the scope's own folder); tests and packagers pass their own."""

    @property
    def path(self) -> Path:
        if self.unit_dir is not None:
            return self.unit_dir / UNIT
        if self.scope == "system":
            return Path("/etc/systemd/system") / UNIT
        base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
        return Path(base) / "systemd" / "user" / UNIT

    def systemctl(self, *args: str) -> list[str]:
        return ["systemctl", *(["--user"] if self.scope == "user" else []), *args]

    def log_command(self) -> str:
        return "journalctl --user -u narrator -f" if self.scope == "user" else "journalctl -u narrator -f"


def unit_text(scope: Scope, *, python: str | None = None, user: str | None = None, uid: int | None = None) -> str:
    """The unit file for `scope`, running this Python's `narrator serve` with this user's folders."""
    python = python or sys.executable
    env = {"NARRATOR_CONFIG_DIR": str(config_path().parent), "NARRATOR_DATA_DIR": str(data_dir()),
           "PYTHONUNBUFFERED": "1"}
    lines = [
        "[Unit]",
        "Description=narrator: the electronic judge for Werewolf (narrator serve)",
        "After=sound.target" + (" pipewire.service pipewire-pulse.service pulseaudio.service"
                                if scope == "user" else " network-online.target"),
        "Wants=sound.target",
        "StartLimitIntervalSec=300",
        "StartLimitBurst=10",
        "",
        "[Service]",
        "Type=simple",
        f"ExecStart={python} -m narrator.cli.main serve",
        "Restart=on-failure",
        "RestartSec=3",
        # stdout is the host's console (secret lines when there is no earpiece): never into the journal.
        "StandardOutput=null",
        "StandardError=journal",
    ]
    if scope == "system":
        user = user or _user_name()
        uid = os.getuid() if uid is None else uid
        env["XDG_RUNTIME_DIR"] = f"/run/user/{uid}"  # the user's sound server
        lines += [f"User={user}", "SupplementaryGroups=audio"]
    lines += [f'Environment="{k}={v}"' for k, v in env.items()]
    lines += ["", "[Install]", f"WantedBy={'default.target' if scope == 'user' else 'multi-user.target'}", ""]
    return "\n".join(lines)


def _user_name() -> str:
    import getpass

    return getpass.getuser()


def install(service: Service, *, run_systemctl: bool = True) -> list[str]:
    """Write the unit (unchanged when it is already there) and enable it; what was done, one line each."""
    text = unit_text(service.scope)
    path = service.path
    out: list[str] = []
    if path.exists() and path.read_text(encoding="utf-8") == text:
        out.append(f"unchanged: {path}")
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
        out.append(f"written: {path}")
    out += _systemctl(service, run_systemctl, ("daemon-reload",), ("enable", "--now", UNIT))
    return out


def uninstall(service: Service, *, run_systemctl: bool = True) -> list[str]:
    path = service.path
    if not path.exists():
        return [f"not installed: {path}"]
    out = _systemctl(service, run_systemctl, ("disable", "--now", UNIT))
    path.unlink()
    out.append(f"removed: {path}")
    out += _systemctl(service, run_systemctl, ("daemon-reload",))
    return out


def status(service: Service, *, run_systemctl: bool = True) -> list[str]:
    path = service.path
    out = [f"unit: {path} ({'installed' if path.exists() else 'not installed'})"]
    if run_systemctl and shutil.which("systemctl"):
        state = subprocess.run(service.systemctl("is-active", UNIT), capture_output=True, text=True, check=False)
        out.append(f"running: {state.stdout.strip() or state.stderr.strip() or 'unknown'}")
    else:
        out.append("running: unknown (no systemctl here)")
    out.append(f"log: {service.log_command()}")
    return out


def _systemctl(service: Service, run: bool, *calls: tuple[str, ...]) -> list[str]:
    out = []
    for args in calls:
        command = service.systemctl(*args)
        if not run or not shutil.which("systemctl"):
            out.append(f"to do: {' '.join(command)}")
            continue
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        said = (done.stderr or done.stdout).strip().splitlines()
        out.append(f"{'ok' if done.returncode == 0 else 'failed'}: {' '.join(command)}"
                   + (f" ({said[-1]})" if said and done.returncode else ""))
    return out
