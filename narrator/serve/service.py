"""`narrator service install|uninstall|status`: a systemd unit that runs `narrator serve` at boot, as the device's
owner, with the owner's sound server.

The owner is the user whose `narrator setup` configured the devices: `--user NAME`, else the user who called
sudo ($SUDO_USER), else the user running the command. Root is never a system unit's owner unless named with
`--user root` (root has no sound server of its own; its folders hold no config). Two scopes:

* **user** (default): ~/.config/systemd/user/narrator.service in the user's own service manager, which also runs
  the user's sound server (PipeWire or PulseAudio): the unit `Wants=` the sound server's socket that is
  installed and is ordered `After=` its services. To start at boot without a login the user needs lingering
  (`loginctl enable-linger`), which `install` turns on and `status` checks.
* **system**: /etc/systemd/system/narrator.service, run as the owner (`User=`), with the owner's runtime
  folder (`XDG_RUNTIME_DIR=/run/user/UID`, where the sound server listens), ordered after the owner's service
  manager (`Wants=` and `After=user@UID.service`, which starts that sound server); lingering is turned on
  too, so logging out of the device does not stop the sound server. Needs root (sudo).

Both are `Type=notify`: `serve` says READY=1 at its ready line and feeds a watchdog (narrator/serve/notify.py);
a stop (`systemctl stop`, SIGTERM: exit 143) or Ctrl-C (130) is a clean exit (`SuccessExitStatus=`), 关机 exits
0, and only a failure is restarted. Standard output (the host's console, which holds secret lines when there is
no earpiece) goes nowhere, never into the journal: without an earpiece `serve` refuses to start a game and says
why aloud.

Install and uninstall are idempotent: installing the same unit again changes nothing, uninstalling what is
not installed says so. `systemctl` is called when it is there (daemon-reload, enable --now / disable --now);
without it (a container, a build machine) the unit is still written and the commands to run are printed.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from narrator.common.paths import APP, CONFIG_ENV, DATA_ENV, config_path, data_dir

UNIT = "narrator.service"
Scope = Literal["user", "system"]
LINGER_DIR = Path("/var/lib/systemd/linger")
USER_UNIT_DIRS = (Path("/usr/lib/systemd/user"), Path("/lib/systemd/user"), Path("/etc/systemd/user"))
SOUND_SERVERS = (("pipewire", ("pipewire.socket", "pipewire-pulse.socket"),
                  ("pipewire.service", "pipewire-pulse.service", "wireplumber.service")),
                 ("pulseaudio", ("pulseaudio.socket",), ("pulseaudio.service",)))
"""(name, its sockets, its services) of the sound servers a user unit can be ordered after."""
WATCHDOG_S = 30
"""The unit's WatchdogSec: `serve` feeds it every 15 s; a process stuck for 30 s is restarted."""
START_TIMEOUT_S = 180
"""Power-on → ready may load a speech model from an SD card: generous."""


class ServiceError(ValueError):
    """The unit cannot be installed as asked; one sentence with the fix."""


@dataclass(frozen=True)
class Owner:
    name: str
    uid: int
    home: Path

    @classmethod
    def find(cls, name: str | None = None, *, scope: Scope = "user") -> Owner:
        """`name`, else $SUDO_USER, else whoever runs this; ServiceError for an unknown user, or for root as a
        system unit's owner by default."""
        sudo = os.environ.get("SUDO_USER") if os.geteuid() == 0 else None
        if scope == "user" and sudo and not name:
            raise ServiceError("a user unit is installed by its user: run it without sudo, or use --scope system")
        chosen = name or sudo or pwd.getpwuid(os.getuid()).pw_name
        try:
            entry = pwd.getpwnam(chosen)
        except KeyError:
            raise ServiceError(f"--user {chosen}: no such user on this machine") from None
        if entry.pw_uid == 0 and not name and scope == "system":
            raise ServiceError("the unit runs as the device's owner, not root: run it with sudo from the owner's "
                               "account, or name the owner with --user NAME")
        if scope == "user" and entry.pw_uid != os.getuid():
            raise ServiceError(f"--user {chosen}: a user unit can only be installed by {chosen} (or use "
                               "--scope system as root)")
        return cls(entry.pw_name, entry.pw_uid, Path(entry.pw_dir))

    @property
    def is_me(self) -> bool:
        return self.uid == os.getuid()

    def folders(self) -> tuple[Path, Path]:
        """The owner's config folder and data folder: as `narrator setup` run by the owner finds them
        ($NARRATOR_CONFIG_DIR / $NARRATOR_DATA_DIR when set here; else the owner's XDG folders)."""
        if self.is_me:
            return config_path().parent, data_dir()
        config = os.environ.get(CONFIG_ENV) or str(self.home / ".config" / APP)
        data = os.environ.get(DATA_ENV) or str(self.home / ".local" / "share" / APP)
        return Path(config), Path(data)

    @property
    def lingering(self) -> bool:
        return (LINGER_DIR / self.name).exists()


@dataclass(frozen=True)
class Service:
    scope: Scope = "user"
    unit_dir: Path | None = None
    """Where the unit goes (default: the scope's own folder); tests and packagers pass their own."""
    user: str | None = None
    """The owner (`--user`); None: $SUDO_USER or the caller."""

    @property
    def path(self) -> Path:
        if self.unit_dir is not None:
            return self.unit_dir / UNIT
        if self.scope == "system":
            return Path("/etc/systemd/system") / UNIT
        base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
        return Path(base) / "systemd" / "user" / UNIT

    def owner(self) -> Owner:
        return Owner.find(self.user, scope=self.scope)

    def systemctl(self, *args: str) -> list[str]:
        return ["systemctl", *(["--user"] if self.scope == "user" else []), *args]

    def log_command(self) -> str:
        return "journalctl --user -u narrator -f" if self.scope == "user" else "journalctl -u narrator -f"


def sound_server_units(unit_dirs: tuple[Path, ...] = USER_UNIT_DIRS) -> tuple[list[str], list[str]]:
    """The installed user sound server's sockets (to want) and services (to start after)."""
    wants: list[str] = []
    after: list[str] = []
    for _name, sockets, services in SOUND_SERVERS:
        found = [s for s in sockets if any((d / s).exists() for d in unit_dirs)]
        if found:
            wants += found
            after += [*found, *(s for s in services if any((d / s).exists() for d in unit_dirs))]
    return wants, after


def unit_text(scope: Scope, owner: Owner, *, python: str | None = None,
              unit_dirs: tuple[Path, ...] = USER_UNIT_DIRS) -> str:
    """The unit file for `scope`, running this Python's `narrator serve` as `owner` with the owner's folders."""
    python = python or sys.executable
    config, data = owner.folders()
    env = {CONFIG_ENV: str(config), DATA_ENV: str(data), "PYTHONUNBUFFERED": "1"}
    if scope == "system":
        wants, after = [f"user@{owner.uid}.service", "sound.target"], [f"user@{owner.uid}.service", "sound.target",
                                                                        "network.target"]
    else:
        wants, after = sound_server_units(unit_dirs)
    lines = [
        "[Unit]",
        "Description=narrator: the electronic judge for Werewolf (narrator serve)",
        *([f"Wants={' '.join(wants)}"] if wants else []),
        *([f"After={' '.join(after)}"] if after else []),
        "StartLimitIntervalSec=300",
        "StartLimitBurst=10",
        "",
        "[Service]",
        "Type=notify",
        "NotifyAccess=main",
        f"ExecStart={python} -m narrator.cli.main serve",
        f"WatchdogSec={WATCHDOG_S}",
        f"TimeoutStartSec={START_TIMEOUT_S}",
        "TimeoutStopSec=20",
        "Restart=on-failure",
        "RestartSec=3",
        # 130: Ctrl-C (a terminal), 143: SIGTERM (systemctl stop): a game in play is saved, nothing failed.
        "SuccessExitStatus=130 143",
        # stdout is the host's console (secret lines when there is no earpiece): never into the journal.
        "StandardOutput=null",
        "StandardError=journal",
    ]
    if scope == "system":
        env["XDG_RUNTIME_DIR"] = f"/run/user/{owner.uid}"  # the owner's sound server
        # audio: the sound card; input: a USB keypad read through /dev/input (narrator/listen/evkeys.py).
        lines += [f"User={owner.name}", "SupplementaryGroups=audio input",
                  # the recap pages on port 80 (narrator/serve/web.py), without running as root
                  "AmbientCapabilities=CAP_NET_BIND_SERVICE"]
    lines += [f'Environment="{k}={v}"' for k, v in env.items()]
    lines += ["", "[Install]", f"WantedBy={'default.target' if scope == 'user' else 'multi-user.target'}", ""]
    return "\n".join(lines)


def install(service: Service, *, run_systemctl: bool = True) -> list[str]:
    """Write the unit (unchanged when it is already there), turn lingering on and enable it; what was done,
    one line each. ServiceError says why it cannot be installed for this owner."""
    owner = service.owner()
    text = unit_text(service.scope, owner)
    path = service.path
    out: list[str] = [f"owner: {owner.name} (uid {owner.uid})"]
    if path.exists() and path.read_text(encoding="utf-8") == text:
        out.append(f"unchanged: {path}")
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
        out.append(f"written: {path}")
    if owner.lingering:
        out.append(f"lingering: on for {owner.name}")
    else:
        out += _run(run_systemctl, ["loginctl", "enable-linger", owner.name])
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
    try:
        owner = service.owner()
    except ServiceError as exc:
        out.append(f"owner: unknown ({exc})")
    else:
        fix = f" (it will not start at boot; fix: loginctl enable-linger {owner.name})"
        out.append(f"lingering: {'on' if owner.lingering else 'off'} for {owner.name}"
                   + ("" if owner.lingering else fix))
    out.append(f"log: {service.log_command()}")
    return out


def _systemctl(service: Service, run: bool, *calls: tuple[str, ...]) -> list[str]:
    out = []
    for args in calls:
        out += _run(run, service.systemctl(*args))
    return out


def _run(run: bool, command: list[str]) -> list[str]:
    """Run `command` (a systemctl or loginctl call) and say how it went, or say it is to do."""
    if not run or not shutil.which(command[0]):
        return [f"to do: {' '.join(command)}"]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    said = (done.stderr or done.stdout).strip().splitlines()
    return [f"{'ok' if done.returncode == 0 else 'failed'}: {' '.join(command)}"
            + (f" ({said[-1]})" if said and done.returncode else "")]
