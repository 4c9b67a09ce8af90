"""The device's config: a small TOML file in the platform's config folder, written by `narrator setup`,
read by `play`, `resume` and `doctor`. Command-line options override it.

    [audio]
    table = "pulse:room"     # the table's speaker: "default", an index, part of a name, pulse:SINK, "none"
    host = ""                # the host's earpiece ("" = the host's lines go to the console)
    mic = "default"          # the microphone: "default", an index or part of a name
    echo_cancel = ""         # "webrtc": PulseAudio's echo canceller between table and mic (narrator.play.echo); "off";
                             # "": not chosen yet (`narrator setup` turns WebRTC on where it loads)
    keypad = "auto"          # auto (the terminal, else a USB numeric keypad), terminal, /dev/input/by-id/…, a name
    [voice]
    backend = "edge"         # edge (espeak-ng when offline) or espeak
    name = ""                # "" = the backend's default voice
    volume = "0"             # dB on the table's speaker (narrator serve: 大声点 / 小声点)
    pace = "1"               # scales every pause (narrator serve: 慢一点 / 快一点)
    [game]
    lang = "zh-Hans"
    input = "voice,keypad"   # voice, keypad, text (comma-separated)
    read_back = "irreversible"  # always, irreversible (spoken kill, poison, shot, exile, badge, duel, check), doubt
    seat_doubt = "always"    # always: every spoken seat answer is read back; score: the N-best gap decides
    doubt_gap = "3"          # Vosk score units: readings meaning different answers closer than this are a doubt
    drop_forms = ""          # spoken forms the host's voice does not get through: "一号:하나, 七号:일곱" (calibration)
    judge_name = ""          # the judge's name before a command during speeches ("" = the grammar's: 法官)
    [web]
    listen = "auto"          # narrator serve's recap pages: auto (port 80, else 8080), HOST:PORT, :PORT, off
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from narrator.common.paths import config_path

INPUTS = ("voice", "keypad", "text")
LANGS = ("zh-Hans", "zh-Hant")
BACKENDS = ("edge", "espeak")
READ_BACK = ("always", "irreversible", "doubt")
SEAT_DOUBT = ("always", "score")


class ConfigError(ValueError):
    """The config file cannot be used; the message names the file, the key and the fix."""


@dataclass
class Audio:
    table: str = "default"
    host: str = ""
    mic: str = "default"
    echo_cancel: str = ""
    """"webrtc" (or "speex"): play and record through PulseAudio's echo canceller; "off": none (the owner said
    `setup --no-echo-cancel`); "": none, not chosen yet — `narrator setup` turns WebRTC on where it loads."""
    keypad: str = "auto"
    """The keypad: "auto" (the terminal when there is one, else the first USB numeric keypad), "terminal", or
    an input device's path or part of its name (narrator/listen/evkeys.py)."""

    @property
    def canceller(self) -> str | None:
        """The echo canceller's method to play and record through, or None."""
        return None if self.echo_cancel in ("", "off") else self.echo_cancel


@dataclass
class VoiceCfg:
    backend: str = "edge"
    name: str = ""
    volume: str = "0"
    """dB on the table's speaker (大声点 / 小声点 in `narrator serve` move it by 3 dB)."""
    pace: str = "1"
    """Scales every pause (慢一点 / 快一点 in `narrator serve`); the same for every step."""

    @property
    def volume_db(self) -> float:
        return float(self.volume)

    @property
    def pace_scale(self) -> float:
        return float(self.pace)


@dataclass
class GameCfg:
    lang: str = "zh-Hans"
    input: str = "voice,keypad"
    read_back: str = "irreversible"
    judge_name: str = ""
    seat_doubt: str = "always"
    """"always": every spoken seat answer is read back (measured: no score told a misread seat); "score": the
    N-best gap decides (narrator/listen/doubt.py)."""
    doubt_gap: str = "3"
    """Vosk score units: two readings meaning different answers closer than this are a doubt."""
    drop_forms: str = ""
    """Spoken forms the ear leaves out of the grammar pack: "一号:하나, 七号:일곱" (a `say:` pack) or "幺号, 幺"
    (narrator/listen/grammar.py `Pack.without`); what a calibration of the host's voice writes."""


@dataclass
class WebCfg:
    listen: str = "auto"
    """Where `narrator serve` serves the finished games' recap pages (narrator/serve/web.py): auto, off, ..."""


@dataclass
class Config:
    audio: Audio = field(default_factory=Audio)
    voice: VoiceCfg = field(default_factory=VoiceCfg)
    game: GameCfg = field(default_factory=GameCfg)
    web: WebCfg = field(default_factory=WebCfg)
    path: Path | None = None
    """Where it was read from (None: defaults, no file)."""

    @classmethod
    def load(cls, path: Path | None = None) -> Config:
        """The config at `path` (default: the platform's config folder); defaults when there is none."""
        path = path or config_path()
        if not path.exists():
            return cls()
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8-sig"))  # a BOM (Notepad) is not an error
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"{path}: not a readable TOML file ({exc}); fix it or run `narrator setup`") from exc
        return cls.from_dict(data, path)

    @classmethod
    def from_dict(cls, data: Mapping[str, object], path: Path | None = None) -> Config:
        where = str(path) if path else "config"
        out = cls(path=path)
        sections: dict[str, Audio | VoiceCfg | GameCfg | WebCfg] = {"audio": out.audio, "voice": out.voice,
                                                                    "game": out.game, "web": out.web}
        for name, value in data.items():
            if name not in sections:
                raise ConfigError(f"{where}: unknown section [{name}]; known: {', '.join(sections)}")
            if not isinstance(value, dict):
                raise ConfigError(f"{where}: [{name}] must be a table")
            target = sections[name]
            known = {f.name for f in fields(target)}
            for key, item in value.items():
                if key not in known:
                    raise ConfigError(f"{where}: unknown key {name}.{key}; known: {', '.join(sorted(known))}")
                if not isinstance(item, str):
                    raise ConfigError(f"{where}: {name}.{key} must be a string, not {item!r}")
                setattr(target, key, item)
        out.check(where)
        return out

    def check(self, where: str = "config") -> None:
        if self.game.lang not in LANGS:
            raise ConfigError(f"{where}: game.lang must be one of {', '.join(LANGS)}, not {self.game.lang!r}")
        if self.voice.backend not in BACKENDS:
            raise ConfigError(f"{where}: voice.backend must be one of {', '.join(BACKENDS)}, "
                              f"not {self.voice.backend!r}")
        parse_inputs(self.game.input, where=f"{where}: game.input")
        from narrator.play.echo import METHODS

        if self.audio.echo_cancel not in ("", "off", *METHODS):
            raise ConfigError(f"{where}: audio.echo_cancel must be one of {', '.join(METHODS)}, off or \"\", "
                              f"not {self.audio.echo_cancel!r}")
        if self.game.read_back not in READ_BACK:
            raise ConfigError(f"{where}: game.read_back must be one of {', '.join(READ_BACK)}, "
                              f"not {self.game.read_back!r}")
        if self.game.seat_doubt not in SEAT_DOUBT:
            raise ConfigError(f"{where}: game.seat_doubt must be one of {', '.join(SEAT_DOUBT)}, "
                              f"not {self.game.seat_doubt!r}")
        try:
            gap_ok = 0.0 <= float(self.game.doubt_gap) <= 1000.0
        except ValueError:
            gap_ok = False
        if not gap_ok:
            raise ConfigError(f"{where}: game.doubt_gap must be a number from 0 to 1000, not {self.game.doubt_gap!r}")
        for key, low, high in (("volume", -30.0, 12.0), ("pace", 0.3, 3.0)):
            raw = getattr(self.voice, key)
            try:
                ok = low <= float(raw) <= high
            except ValueError:
                ok = False
            if not ok:
                raise ConfigError(f"{where}: voice.{key} must be a number from {low:g} to {high:g}, not {raw!r}")

    def to_dict(self) -> dict[str, dict[str, object]]:
        return {"audio": asdict(self.audio), "voice": asdict(self.voice), "game": asdict(self.game),
                "web": asdict(self.web)}

    def save(self, path: Path | None = None) -> Path:
        """Write atomically (a temporary file, then rename), so a crash never leaves half a config."""
        import tomli_w

        path = path or self.path or config_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(tomli_w.dumps(self.to_dict()), encoding="utf-8")
        tmp.replace(path)
        self.path = path
        return path


def parse_inputs(spec: str, where: str = "--input") -> tuple[str, ...]:
    """"voice,keypad" → ("voice", "keypad"); unknown or empty → ConfigError naming the choices."""
    items = tuple(dict.fromkeys(s.strip() for s in spec.split(",") if s.strip()))
    bad = [s for s in items if s not in INPUTS]
    if bad or not items:
        what = f"unknown input {', '.join(bad)}" if bad else "no input"
        raise ConfigError(f"{where}: {what}; choose from {', '.join(INPUTS)} (comma-separated)")
    return items
