"""`narrator serve`: the device's main program — lobby → game → recap → lobby, for ever, by voice alone.

At power-on it opens the ear once (the speech model loads here: the ready line waits for it) and offers an
unfinished game of the last day ("上一局还没结束：…。继续吗？"), else says the ready line. The lobby
(narrator/serve/lobby.py) is asked through the very loop a game uses — `narrator.play.loop.Live` with the
lobby in the place of the Session: its mouth, its guarded ear (a lost microphone is reported and the keypad
goes on), the ear's `Dialogue` — and a game is played by `narrator.play.run.play_on`, the one game loop of
`play` and `resume`, on a mouth of its own (its seed draws the table's pauses) and the same ear.

Every event is one line on stderr (`log`; journald keeps it under the service). Nothing secret is logged:
no answer of a game, no card — only what the table heard anyway (the lobby's choices, who won).
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import random
import stat
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from rich.console import Console

from narrator.common.clock import Clock
from narrator.common.paths import games_dir
from narrator.judge.lines import Line
from narrator.judge.script import Pieces
from narrator.listen.base import Ear, QueueEar
from narrator.listen.dialogue import Dialogue, DialogueConfig
from narrator.listen.first import First
from narrator.play import store
from narrator.play.config import Config
from narrator.play.ears import GuardedEar, InputEnded
from narrator.play.interrupts import Interrupts, Quit
from narrator.play.lines import where_pieces
from narrator.play.loop import Live, QuietView
from narrator.play.mouth import Mouth
from narrator.play.run import NewGame, Wiring, close_when_done, play_on
from narrator.serve.lobby import Choice, Lobby, LobbyState, Step, every_prompt, recap_lines
from narrator.serve.notify import Watchdog, notify
from narrator.serve.reset import LOBBY_FILE
from narrator.serve.web import Web, WebError
from narrator.serve.words import Board, RulePhrase
from narrator.session.journal import write_atomically
from narrator.session.session import Session

log = logging.getLogger("narrator.serve")

RECOVER_WITHIN_S = 24 * 3600.0
"""An unfinished game younger than this (its last answer) is offered at power-on."""
VOLUME_STEP_DB, VOLUME_RANGE_DB = 3.0, (-30.0, 12.0)
PACE_STEP, PACE_RANGE = 1.2, (0.4, 2.5)
MAX_FAILURES = 3
"""Unexpected errors in a row after which `serve` gives up (exit 70: the unit restarts it)."""
LISTENING_CUE = "tick"
"""The cue (narrator/audio/beds.py) played in the earpiece when a lobby question starts listening."""
LISTENING_MARK = "🎤"
"""What the host's console shows then (no earpiece)."""
RECAP_LOOKBACK = 5
"""Newest games looked at for the last recap at power-on."""
WAKE_S = 0.25
"""s between the lobby's looks, while it waits, at what is due: the streams' rest, the voice's news."""
RESUMED = -1
"""`Device._turn`: the offered game was taken up or dropped (it is offered no more)."""


class LobbyView(QuietView):
    """What the lobby shows besides its lines: device alerts (a lost microphone), logged too."""

    def __init__(self, console: Console) -> None:
        self.console = console

    def alert(self, text: str) -> None:
        log.info("alert: %s", text)
        self.console.print(f"⚠ {text}", style="yellow", markup=False)


@dataclass
class Device:
    wiring: Wiring
    config: Config
    lang: str = "zh-Hans"
    seed: int | None = None
    """The first game's seed (the next ones: +1 each); None draws one per game."""
    console: Console = field(default_factory=lambda: Console(highlight=False, soft_wrap=True))
    games_root: Path | None = None
    ask_again_s: float = 20.0
    """s of silence before a lobby question is asked again; as long again, and the lobby goes back to waiting."""
    interrupts: Interrupts = field(default_factory=Interrupts)
    games: int = 0
    web: Web | None = None
    """The finished games' recap pages on the local network (None: not served)."""
    _mouth: Mouth | None = None
    _ear: Ear | None = None
    _kept: LobbyState | None = None
    """The lobby state last written (written again only when it changed)."""
    _started: float = 0.0
    """time.monotonic() when `run` began."""
    _waiting_at: str | None = None
    """The lobby question waiting for the host, its lines said (its step's kind); None: none is."""
    _voice_waited: bool = False
    """Something waited for the voice to join (a game asked for before the model loaded)."""
    _voice: VoiceJoining | None = None
    """The microphone joining the keys and typed text after the ready line (None: the ear opened whole)."""

    def run(self) -> int:
        """Serve until 关机 (0), the input ends (3), Ctrl-C twice (130) or SIGTERM (143: `systemctl stop`)."""
        started = self._started = time.monotonic()
        later = self.wiring.ear_later(18)
        if later is not None:
            # Keys and typed text answer from the ready line on; the microphone joins them when the speech
            # model (the longest step of the start: seconds) has loaded — `_voice_joins`, started once the
            # mouth is open: on one core the two would share it, and the ready line would wait for both.
            self._ear, open_voice = later
            self._voice = VoiceJoining()
            later[0].expect()
            try:
                self._mouth = self.wiring.mouth(self.console, 0, self.lang)
            except BaseException:
                self._ear.close()
                raise
            threading.Thread(target=self._voice_joins, args=(later[0], open_voice), name="narrator-voice",
                             daemon=True).start()
        else:
            # The ear and the mouth open side by side; the ready line waits for both (an ear with the voice
            # alone must hear the answer to it).
            with ThreadPoolExecutor(max_workers=1, thread_name_prefix="narrator-ear") as pool:
                ear_job = pool.submit(self._open_ear)
                every_prompt()  # the lobby's questions, made while the model loads (the ear's thread checks them)
                try:
                    self._mouth = self.wiring.mouth(self.console, 0, self.lang)
                    self._ear = ear_job.result()
                except BaseException:
                    if self._mouth is not None:
                        self._mouth.close()
                    close_when_done(ear_job)
                    raise
        lobby = Lobby(self.lang, played=Counter(store.played(self.games_root)), judge_name=self.judge_name)
        lobby.recap = self._last_recap(lobby)
        found = store.recoverable(self.games_root, within_s=RECOVER_WITHIN_S) if self.host_channel else None
        if found is not None:
            saved, session = found
            lobby.recover(where_pieces(lobby.script, session.place()))
            log.info("unfinished game %s offered", saved.id)
        elif self.host_channel and lobby.restore(self._kept_state()):
            log.info("lobby taken up at %s", lobby.step.kind)
        elif self.host_channel:
            lobby.ready()
        else:  # said at every power-on, and again whenever a game is asked for (an unfinished one waits)
            log.warning("no host channel: no earpiece (audio.host) and standard output goes nowhere; "
                        "no game can start (fix: narrator setup --host DEVICE)")
            lobby.go(Step("idle"), lobby.line("ready"), lobby.line("no_host"), ask=False)
        log.info("ready in %.2f s (inputs %s%s)", time.monotonic() - started, ",".join(self.wiring.inputs),
                 "; the voice joins when the speech model has loaded" if self._voice is not None else "")
        self.interrupts.install()
        notify("READY=1", "STATUS=ready: in the lobby")
        dog = Watchdog.start_if_asked(threading.main_thread().is_alive)
        if self.web is not None:
            self.web.root, self.web.lang = self.games_root, self.lang
            try:
                self.web.start()
            except WebError as exc:
                log.warning("web: %s", exc)
        try:
            return self._serve(lobby, found[0] if found else None)
        except Quit as stop:
            log.info("stopped (%s)", stop.why)
            return stop.code
        except InputEnded:
            log.info("every input ended")
            return 3
        finally:
            notify("STOPPING=1")
            if dog is not None:
                dog.stop()
            if self.web is not None:
                self.web.stop()
            self.interrupts.uninstall()
            if self._mouth is not None:
                self._mouth.close()
            self.ear.close()

    @property
    def host_channel(self) -> bool:
        """The host's secret lines can reach the host: an earpiece, or a console that is not /dev/null (the unit
        sends standard output nowhere, so the journal never holds a secret)."""
        return bool(self.wiring.host) or not _writes_nowhere(self.console.file)

    @property
    def judge_name(self) -> str:
        """`--judge-name`, else the grammar pack's (法官)."""
        from narrator.listen.grammar import load_pack

        return self.wiring.judge_name or load_pack(self.wiring.pack).wake[0]

    @property
    def mouth(self) -> Mouth:
        """The lobby's mouth (a game has one of its own; the lobby's is opened again after it)."""
        assert self._mouth is not None, "Device.run opens the lobby's mouth"
        return self._mouth

    @property
    def ear(self) -> Ear:
        """The ear `run` opened (one for every lobby question and every game)."""
        assert self._ear is not None, "Device.run opens the ear"
        return self._ear

    def _open_ear(self) -> Ear:
        ear = self.wiring.ear(18)
        check_vocabulary(ear)
        return ear

    def _voice_joins(self, ears: First, open_voice: Callable[[], QueueEar]) -> None:
        """On its own thread after the start: load the speech model, check every lobby question's words
        against it and let the microphone join the other inputs. A model or microphone that cannot be opened
        is logged with its fix and said at the lobby (`_voice_news`): the keys and typed text go on."""
        voice = self._voice
        assert voice is not None
        try:
            mic = open_voice()
            check_vocabulary(mic)  # closes it on a VocabularyError
        except Exception as exc:  # StartProblem (model, microphone, words), or anything else: never the device
            log.error("the voice cannot listen: %s; keys and typed text go on", exc)
            ears.join(None)
            voice.settle("failed")
            return
        if ears.join(mic):
            log.info("the voice joined %.2f s after the start", time.monotonic() - self._started)
            voice.settle("joined", late=self._waiting_at is not None)
        else:
            voice.settle("closed")

    def _voice_news(self, lobby: Lobby) -> list[Line]:
        """What the table hears of the voice joining, once: nothing when the microphone joined before a
        question was waiting on the host (it was deaf while the ready line played anyway); "法官现在能听见说话了，
        请说。" when it joined while the lobby was already waiting — a host who spoke before was not heard; that
        the microphone or the model cannot be opened (the keys or the console still answer)."""
        voice = self._voice
        if voice is None or voice.state is None or voice.told:
            return []
        voice.told = True
        if voice.state == "joined":
            return [lobby.line("voice_joined")] if voice.late else []
        if voice.state == "failed":
            return [lobby.line("voice_failed" if "keypad" in self.wiring.inputs else "voice_failed.text")]
        return []

    def _voice_settled(self, lobby: Lobby) -> None:
        """Wait for the voice to join or fail before what needs it whole (a game: its read-backs are set by
        the microphones it has at its start; 校准); a failure is said first."""
        voice = self._voice
        if voice is None or voice.state is not None:
            return
        log.info("waiting for the speech model before going on")
        self._voice_waited = True
        voice.settled.wait()
        if voice.state == "joined":
            voice.told = True  # the question it joins at is asked after this: nothing was missed
        self._speak(lobby, self._voice_news(lobby))

    # ---- the lobby ------------------------------------------------------------------------------------

    def _serve(self, lobby: Lobby, offered: store.SavedGame | None) -> int:
        failures = 0
        while True:
            try:
                code = self._turn(lobby, offered)
                failures = 0
            except (Quit, InputEnded):
                raise
            except Exception:  # no error ends the device: say so and start the lobby again
                failures += 1
                log.exception("the lobby failed (%d in a row); back to waiting", failures)
                if failures >= MAX_FAILURES:
                    raise
                lobby.go(Step("idle"), lobby.line("failed"))
                code = None
            self._keep_state(lobby)
            if code is None:
                continue
            if code == RESUMED:
                offered = None
                continue
            return code

    def _turn(self, lobby: Lobby, offered: store.SavedGame | None) -> int | None:
        """One lobby answer and what it leads to: None to go on, RESUMED once the offered game was taken up,
        else the exit code."""
        action = self._ask(lobby)
        if action is None:
            return None
        log.info("lobby action: %s", action)
        if action == "shutdown":
            self._speak(lobby, [lobby.line("shutdown")])
            lobby.go(Step("idle"), ask=False)  # switched off on purpose: the next power-on starts afresh
            return 0
        if action in ("louder", "softer", "slower", "faster"):
            self._setting(action)
        elif action == "calibrate":
            self._calibrate(lobby)
        elif action == "abandon" and offered is not None:
            offered.abandon()
            log.info("game %s abandoned", offered.id)
            return RESUMED
        elif action in ("resume", "play") and not self.host_channel:
            log.info("no game without a host channel (%s refused)", action)
            lobby.go(Step("idle"), lobby.line("no_host"), ask=False)
        elif action == "resume" and offered is not None:
            return self._resume(lobby, offered) or RESUMED
        elif action in ("resume", "abandon"):  # nothing offered (cannot be: the question is asked for one)
            lobby.go(Step("idle"))
        elif action == "play":
            return self._new_game(lobby) or None
        return None

    # ---- what outlives a power cut ---------------------------------------------------------------------

    @property
    def _state_path(self) -> Path:
        """The lobby's state, beside the games folder (the data folder's lobby.json)."""
        return (self.games_root or games_dir()).parent / LOBBY_FILE

    def _keep_state(self, lobby: Lobby) -> None:
        state = lobby.state()
        if state == self._kept:
            return
        try:
            self._state_path.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(self._state_path, json.dumps(state, ensure_ascii=False).encode("utf-8"))
            self._kept = state
        except OSError as exc:  # the lobby goes on; only a power cut would lose where it stood
            log.warning("cannot keep the lobby's state in %s: %s", self._state_path, exc)

    def _kept_state(self) -> object:
        """What json.loads read from lobby.json (None: nothing readable); Lobby.restore checks it."""
        try:
            return json.loads(self._state_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def _last_recap(self, lobby: Lobby) -> list[Line]:
        """The spoken recap of the newest game played to its end (上一局复盘 after a restart), looking at the
        newest few games only (power-on stays quick)."""
        for saved in list(reversed(store.all_games(self.games_root)))[:RECAP_LOOKBACK]:
            try:
                session = saved.load()
            except Exception:  # a damaged journal: the game list says so; the lobby looks further back
                log.warning("game %s cannot be read for its recap", saved.id)
                continue
            if session.over:
                return recap_lines(lobby.script, session)
        return []

    def _live(self, lobby: Lobby) -> Live:
        """The game's loop with the lobby in the Session's place: its mouth, its guarded ear, device alerts."""
        return Live(lobby, self.mouth, self.ear, view=LobbyView(self.console), interrupts=self.interrupts)

    def _speak(self, lobby: Lobby, lines: list[Line]) -> None:
        self._live(lobby).speak(lines)

    def _ask(self, lobby: Lobby) -> str | None:
        """Say what the lobby has to say and take one answer; the action it led to (None: ask on). Silence
        at a question goes back to waiting. Nothing of it outlives the call (a game's mouth comes next)."""
        live = self._live(lobby)
        ear = live.guarded()
        ear.follow(self.mouth.playing)  # deaf to the lobby's own lines, as a game's ear is to the judge's
        self.ear.set_mode("lobby")  # the microphone's larger blocks while the lobby waits (nothing once it is)
        asked = lobby.take_lines()
        live.speak(asked)
        self._waiting_at = lobby.step.kind  # the voice joining from now on joins late: the host may have spoken
        try:
            return self._answer(lobby, live, ear, asked)
        finally:
            self._waiting_at = None

    def _answer(self, lobby: Lobby, live: Live, ear: GuardedEar, asked: list[Line]) -> str | None:
        self._listening_cue()
        waiting = lobby.step.kind == "idle"
        # What the recogniser doubts is read back here as in a game, and every spoken count (Choice.numbered):
        # each choice says itself ("十二个人，对吗？"), and the right one said instead is read back in its turn.
        config = DialogueConfig(pack=self.wiring.pack, judge_name=self.wiring.judge_name,
                                ask_again_s=math.inf if waiting else self.ask_again_s,
                                remind_s=self.ask_again_s, give_up_after=None if waiting else 1)
        dialogue = Dialogue(lobby, ear, live.say_line, live.clock or _clock(), config)
        ear.dialogue = dialogue
        dialogue.wake = lambda: self._waiting(lobby, live)  # the voice's news first, then the streams' rest
        if dialogue.answer(asked) is None:
            if not dialogue.gave_up:
                raise InputEnded()
            log.info("lobby: no answer at %s, back to waiting", lobby.step.kind)
            lobby.go(Step("idle"), lobby.line("silence"))
            return None
        taken = lobby.taken
        log.info("lobby: %s%s → %s", taken.what if taken else "?", _shown(taken), lobby.step.kind)
        return lobby.take_action()

    def _waiting(self, lobby: Lobby, live: Live) -> float | None:
        """Called while the lobby waits for the host (the dialogue's wake): the voice joining is said, and
        the table's streams rest once everything said has played (`Mouth.rest`: a stream writing silence
        costs a point of a core); the next line starts them. s until it must be called again (None: never)."""
        for news in self._voice_news(lobby):
            live.say_line(news)
        pending = self._voice is not None and self._voice.state is None
        if self.mouth.playing is not None and not self.mouth.rest():
            return WAKE_S
        return WAKE_S if pending else None

    def _listening_cue(self) -> None:
        """The device listens now: a tick in the host's earpiece, else 🎤 on the host's console — never on the
        table (the lobby has no night, but a cue there would be one more sound the table learns to read)."""
        if self.wiring.host and self._mouth is not None:
            try:
                if self._mouth.cue_host(LISTENING_CUE):
                    return
            except (ValueError, OSError) as exc:  # a sound bank without it: the console's mark instead
                log.warning("listening cue: %s", exc)
        with contextlib.suppress(OSError):
            self.console.print(LISTENING_MARK, markup=False, highlight=False)

    def _setting(self, action: str) -> None:
        voice = self.config.voice
        if action in ("louder", "softer"):
            step = VOLUME_STEP_DB if action == "louder" else -VOLUME_STEP_DB
            db = min(max(voice.volume_db + step, VOLUME_RANGE_DB[0]), VOLUME_RANGE_DB[1])
            voice.volume, self.wiring.volume_db = f"{db:g}", db
            if self._mouth is not None:
                self._mouth.set_volume(10 ** (db / 20))
        else:
            scale = PACE_STEP if action == "slower" else 1 / PACE_STEP
            pace = round(min(max(voice.pace_scale * scale, PACE_RANGE[0]), PACE_RANGE[1]), 2)
            voice.pace, self.wiring.pace = f"{pace:g}", pace
        where = self.config.save()
        log.info("config: volume %s dB, pace %s (%s)", voice.volume, voice.pace, where)

    def _calibrate(self, lobby: Lobby) -> None:
        """校准: the calibration by voice (narrator/play/calibration.py) on the lobby's microphone — the ear is
        closed for it and opened again with what it found (the config's game.drop_forms) — then the question
        the lobby stood at, again."""
        from narrator.listen.setup import EarOptions
        from narrator.play import calibration

        self._voice_settled(lobby)
        if "voice" not in self.wiring.inputs or (self._voice is not None and self._voice.state != "joined"):
            self._speak(lobby, [calibration.spoken(lobby.script, "cannot")])  # keys and typed text: nothing
            lobby.go(lobby.step)
            return
        self.ear.close()
        opts = EarOptions(mic=None if self.wiring.mic == "default" else self.wiring.mic,
                          model=self.wiring.model_folder(), pack=self.wiring.pack, judge_name=self.wiring.judge_name)
        try:
            calibration.run(opts, lambda line: self._speak(lobby, [line]), log.info, self.config,
                            playing=self.mouth.playing, script=lobby.script)
        finally:
            self.wiring.drop_forms, self.wiring.opened = self.config.game.drop_forms, None
            self._ear = self._open_ear()
        lobby.go(lobby.step)

    # ---- games ----------------------------------------------------------------------------------------

    def _new_game(self, lobby: Lobby) -> int:
        planned = lobby.planned
        assert planned is not None
        seed = random.randrange(1 << 31) if self.seed is None else self.seed + self.games
        session = Session(planned.setup, seed, lang=self.lang)
        lobby.played[planned.preset] += 1
        log.info("game started: %s, %d players, %d rule changes", planned.preset, planned.setup.players,
                 len(planned.rules))
        return self._play(lobby, session, new=NewGame(planned.preset, {}, self.games_root))

    def _resume(self, lobby: Lobby, offered: store.SavedGame) -> int:
        try:
            taken = store.resume_game(offered.id, self.games_root)
        except store.CannotResume as exc:
            log.warning("game %s cannot be resumed: %s", offered.id, exc)
            lobby.go(Step("idle"), lobby.line("cannot_resume"))
            return 0
        log.info("game %s resumed", offered.id)
        return self._play(lobby, taken.session, saved=taken.saved)

    def _play(self, lobby: Lobby, session: Session, *, saved: store.SavedGame | None = None,
              new: NewGame | None = None) -> int:
        """One game on its own mouth and the lobby's ear; 0 when it ended (the lobby asks what next)."""
        self._voice_settled(lobby)
        self.games += 1
        self.mouth.close()
        self._mouth = None
        # The game's microphone blocks (32 ms: the latency its answers were measured with), opened again before
        # its first line: no answer waits for it. Back in the lobby `_ask` asks for the lobby's again.
        self.ear.set_mode("game")
        notify(f"STATUS=playing a game of {session.setup.players}")
        try:
            mouth = self.wiring.mouth(self.console, session.seed, session.lang)
            outcome = play_on(session, self.wiring, mouth, self.ear, self.console, saved=saved, new=new,
                              started=saved is None)
        except (Quit, InputEnded):
            raise
        except Exception:  # a bug or a fault no one foresaw: the game stays saved as it was, the device goes on
            log.exception("game failed; it is saved as it stood")
            outcome = None
        finally:
            session.close()
            notify("STATUS=in the lobby")
            self._mouth = self.wiring.mouth(self.console, 0, self.lang)
        if outcome is None:
            lobby.go(Step("idle"), lobby.line("game_error"))
            return 0
        if outcome.code != 0:
            log.info("game stopped (%s)", outcome.reason)
            return outcome.code
        log.info("game ended: %s won (%s)", session.winner.value if session.winner else "nobody",
                 session.termination)
        said = recap_lines(lobby.script, session)
        urls = self.web.urls() if self.web is not None else []
        if urls:  # the page of the game just ended is on it (narrator.play.run.finish wrote it)
            said.append(lobby.line("web", address=Pieces(("，或者 ".join(urls[:2]),))))
            self.console.print("🌐 " + "  ".join(f"http://{url}/" for url in urls), markup=False)
        preset = new.preset if new is not None else str(saved.meta().get("preset", "")) if saved else None
        lobby.after_game(said, preset, session.setup)
        return 0


class VoiceJoining:
    """The microphone joining after the ready line: how it went (set once, by its thread) and whether the
    table was told."""

    def __init__(self) -> None:
        self.state: str | None = None
        """None while the model loads; "joined", "failed", or "closed" (the device stopped first)."""
        self.late = False
        """It joined while a lobby question was already waiting for the host."""
        self.told = False
        self.settled = threading.Event()

    def settle(self, state: str, *, late: bool = False) -> None:
        self.late, self.state = late, state
        self.settled.set()


def _writes_nowhere(stream: IO[str]) -> bool:
    """True when `stream` is closed or is /dev/null (a file of the test's, a pipe, a terminal: somewhere)."""
    try:
        fd = stream.fileno()
        st = os.fstat(fd)
        null = os.stat(os.devnull)
    except (AttributeError, OSError, ValueError):  # no file descriptor: an in-memory console, written somewhere
        return stream.closed
    return stat.S_ISCHR(st.st_mode) and st.st_rdev == null.st_rdev


def _shown(choice: Choice | None) -> str:
    """What the host chose, for the log: a board's preset, a rule's key, a count."""
    value = None if choice is None else choice.value
    if value is None:
        return ""
    if isinstance(value, Board):
        return f" {value.preset}"
    if isinstance(value, RulePhrase):
        return f" {value.key}"
    return f" {value}"


def check_vocabulary(ear: Ear) -> None:
    """Every lobby question's words are ones the speech model can hear (VocabularyError → StartProblem; the
    ear is closed then: serve does not start)."""
    from narrator.listen.grammar import VocabularyError
    from narrator.play.run import StartProblem

    try:
        ear.check_words(every_prompt(), 18)
    except VocabularyError as exc:
        ear.close()
        raise StartProblem(f"the lobby: {exc}") from exc


def _clock() -> Clock:
    from narrator.play import bootstrap

    return bootstrap.clock()

