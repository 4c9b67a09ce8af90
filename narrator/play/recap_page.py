"""The recap as text: the console (rich), Markdown, and a self-contained HTML page whose votes are drawn
as pictures (inline SVG: the seats round the table, an arrow from each voter to the seat voted for, each
seat coloured by its card's camp). No scripts, no outside files: it opens anywhere, offline."""

from __future__ import annotations

import math
from html import escape
from pathlib import Path

from narrator.engine.roles import WOLF_CARDS, Role
from narrator.journal import write_atomically
from narrator.play.recap import Recap, Vote, when_label

CAMP_COLOURS = {"wolf": "#c0392b", "good": "#2e6fd1", "third": "#8e44ad", "unknown": "#7f8c8d"}
ARROW = "#e67e22"
"""The arrows' colour; the screenshot test looks for it."""


def camp_of(role: Role | None) -> str:
    if role is None:
        return "unknown"
    if role in WOLF_CARDS:
        return "wolf"
    if role in (Role.PIPER,):
        return "third"
    return "good"


def votes_text(recap: Recap, vote: Vote) -> list[str]:
    """"1号、2号 → 7号" per target, most votes first; abstainers last."""
    by_target: dict[int, list[int]] = {}
    for voter, target in vote.ballots:
        by_target.setdefault(target, []).append(voter)
    tally = dict(vote.tally)
    rows = sorted(by_target.items(), key=lambda kv: -tally.get(kv[0], len(kv[1])))
    seat = recap.labels["seat"]
    out = []
    for target, voters in rows:
        n = tally.get(target, len(voters))
        amount = f"{n:g}"
        out.append(f"{'、'.join(seat.format(n=v) for v in voters)} → {seat.format(n=target)}（{amount}票）")
    return out


def markdown(recap: Recap) -> str:
    L, seat = recap.labels, recap.labels["seat"]
    lines = [f"# {recap.title}", "", f"**{recap.result}**", "", f"## {L['nights']}", ""]
    for name, notes in recap.nights:
        lines.append(f"- **{name}**：{'；'.join(notes)}")
    for name, notes in recap.days:
        lines.append(f"- **{name}**：{'；'.join(notes)}")
    lines += ["", f"## {L['votes']}", ""]
    for vote in recap.votes:
        lines.append(f"### {when_label(recap, f'day{vote.day}')} {vote.title}：{vote.outcome}")
        rows = votes_text(recap, vote) or [L["result_only"]]
        lines += [f"- {row}" for row in rows] + [""]
    lines += [f"## {L['deaths']}", "", f"| # | {L['cards']} | | {L['why']} |", "|---|---|---|---|"]
    for d in recap.deaths:
        when = when_label(recap, d.when)
        lines.append(f"| {seat.format(n=d.seat)} | {recap.role_name(d.seat)} | {when} | {d.text} |")
    lines += ["", f"## {L['cards']}", "", "| # | | |", "|---|---|---|"]
    dead = {d.seat for d in recap.deaths}
    for s in range(1, recap.players + 1):
        lines.append(f"| {seat.format(n=s)} | {recap.role_name(s)} | {L['dead'] if s in dead else L['alive_end']} |")
    return "\n".join(lines) + "\n"


def vote_svg(recap: Recap, vote: Vote, size: int = 320) -> str:
    """One vote as a picture: seats on a circle, arrows voter → target, targets ringed by their votes."""
    n = max(recap.players, 1)
    c, r, node = size / 2, size / 2 - 30, 13
    pos = {s: (c + r * math.sin(2 * math.pi * (s - 1) / n), c - r * math.cos(2 * math.pi * (s - 1) / n))
           for s in range(1, n + 1)}
    tally = dict(vote.tally)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="vote" width="{size}" height="{size}" '
             f'viewBox="0 0 {size} {size}" role="img" aria-label="{escape(vote.title)}">',
             '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
             f'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{ARROW}"/></marker></defs>',
             f'<circle cx="{c}" cy="{c}" r="{r}" fill="none" stroke="#ddd" stroke-dasharray="4 4"/>']
    for voter, target in vote.ballots:
        if voter not in pos or target not in pos:
            continue
        (x1, y1), (x2, y2) = pos[voter], pos[target]
        d = math.hypot(x2 - x1, y2 - y1) or 1.0
        ux, uy = (x2 - x1) / d, (y2 - y1) / d
        parts.append(f'<line x1="{x1 + ux * node:.1f}" y1="{y1 + uy * node:.1f}" x2="{x2 - ux * (node + 2):.1f}" '
                     f'y2="{y2 - uy * (node + 2):.1f}" stroke="{ARROW}" stroke-width="2.5" '
                     'marker-end="url(#arrow)" opacity="0.85"/>')
    dead_before = {d.seat for d in recap.deaths if _day_of(d.when) < vote.day or d.when == f"night{vote.day}"}
    for s, (x, y) in pos.items():
        colour = CAMP_COLOURS[camp_of(recap.roles.get(s))]
        got = tally.get(s, 0)
        ring = f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{node + 3 + min(got, 6):.1f}" fill="none" stroke="{ARROW}" ' \
               f'stroke-width="{1.5 + min(got, 6):.1f}" opacity="0.35"/>' if got else ""
        faded = ' opacity="0.35"' if s in dead_before else ""
        parts.append(f'{ring}<g{faded}><circle cx="{x:.1f}" cy="{y:.1f}" r="{node}" fill="{colour}"/>'
                     f'<text x="{x:.1f}" y="{y + 4:.1f}" text-anchor="middle" font-size="12" fill="#fff" '
                     f'font-family="sans-serif">{s}</text></g>')
    parts.append("</svg>")
    return "".join(parts)


def _day_of(when: str) -> int:
    digits = "".join(ch for ch in when if ch.isdigit())
    return int(digits) if digits else 0


CSS = """
body{font-family:"Noto Sans CJK SC","PingFang SC","Microsoft YaHei",sans-serif;margin:2rem auto;max-width:60rem;
padding:0 1rem;color:#222;background:#fafafa}h1{margin-bottom:.2rem}.result{font-size:1.3rem;font-weight:bold;
color:#b03a2e}section{margin:1.5rem 0}.votes{display:flex;flex-wrap:wrap;gap:1rem}.card{background:#fff;
border:1px solid #e3e3e3;border-radius:8px;padding:.6rem 1rem}table{border-collapse:collapse}td,th{padding:.25rem
.7rem;border-bottom:1px solid #eee;text-align:left}.wolf{color:#c0392b}.good{color:#2e6fd1}.third{color:#8e44ad}
.legend span{margin-right:1rem}.dead{color:#999}
"""


def html(recap: Recap) -> str:
    L, seat = recap.labels, recap.labels["seat"]
    e = escape
    body = [f"<h1>{e(recap.title)}</h1>", f'<p class="result">{e(recap.result)}</p>',
            f"<section><h2>{e(L['nights'])}</h2><ul>"]
    for name, notes in recap.nights + recap.days:
        body.append(f"<li><b>{e(name)}</b>：{e('；'.join(notes))}</li>")
    body.append(f"</ul></section><section><h2>{e(L['vote_picture'])}</h2>")
    body.append('<p class="legend">' + "".join(
        f'<span class="{k}">● {e(v)}</span>' for k, v in
        (("wolf", _camp(recap, "wolves")), ("good", _camp(recap, "good")))) + "</p>")
    body.append('<div class="votes">')
    for vote in recap.votes:
        rows = votes_text(recap, vote) or [L["result_only"]]
        title = f"{when_label(recap, f'day{vote.day}')} {vote.title}：{vote.outcome}"
        body.append(f'<div class="card"><h3>{e(title)}</h3>{vote_svg(recap, vote)}<ul>'
                    + "".join(f"<li>{e(row)}</li>" for row in rows) + "</ul></div>")
    body.append(f"</div></section><section><h2>{e(L['deaths'])}</h2><table>")
    for d in recap.deaths:
        body.append(f"<tr><td>{e(seat.format(n=d.seat))}</td><td class=\"{camp_of(recap.roles.get(d.seat))}\">"
                    f"{e(recap.role_name(d.seat))}</td><td>{e(when_label(recap, d.when))}</td>"
                    f"<td>{e(d.text)}</td></tr>")
    body.append(f"</table></section><section><h2>{e(L['cards'])}</h2><table>")
    dead = {d.seat for d in recap.deaths}
    for s in range(1, recap.players + 1):
        state = L["dead"] if s in dead else L["alive_end"]
        body.append(f"<tr><td>{e(seat.format(n=s))}</td><td class=\"{camp_of(recap.roles.get(s))}\">"
                    f"{e(recap.role_name(s))}</td><td class=\"{'dead' if s in dead else ''}\">{e(state)}</td></tr>")
    body.append("</table></section>")
    lang = "zh-Hant" if recap.lang == "zh-Hant" else "zh-Hans"
    return (f'<!DOCTYPE html><html lang="{lang}"><head><meta charset="utf-8"><title>{e(recap.title)}</title>'
            f'<meta name="viewport" content="width=device-width,initial-scale=1"><style>{CSS}</style></head>'
            f"<body>{''.join(body)}</body></html>\n")


def _camp(recap: Recap, slug: str) -> str:
    from narrator.judge.script import Script

    return Script(recap.lang).camp(slug)


def write_pages(recap: Recap, stem: Path) -> tuple[Path, Path]:
    """GAME.recap.html and GAME.recap.md next to the journal (atomic writes)."""
    out = []
    for suffix, text in ((".recap.html", html(recap)), (".recap.md", markdown(recap))):
        path = stem.with_name(stem.name + suffix)
        write_atomically(path, text.encode("utf-8"))  # no .tmp left behind on a full disk
        out.append(path)
    return out[0], out[1]


def print_recap(recap: Recap, console: object | None = None) -> None:
    """The recap on the console (rich)."""
    from rich.console import Console
    from rich.table import Table

    con = console if isinstance(console, Console) else Console(highlight=False)
    L, seat = recap.labels, recap.labels["seat"]
    con.rule(recap.title)
    con.print(f"[bold]{recap.result}[/bold]")
    for name, notes in recap.nights + recap.days:
        con.print(f"[cyan]{name}[/cyan]：{'；'.join(notes)}", markup=True)
    for vote in recap.votes:
        con.print(f"[yellow]{when_label(recap, f'day{vote.day}')} {vote.title}[/yellow]：{vote.outcome}")
        for row in votes_text(recap, vote) or [L["result_only"]]:
            con.print(f"   {row}")
    table = Table(title=L["cards"])
    for col in ("#", L["cards"], L["deaths"]):
        table.add_column(col)
    deaths = {d.seat: d for d in recap.deaths}
    for s in range(1, recap.players + 1):
        d = deaths.get(s)
        table.add_row(seat.format(n=s), recap.role_name(s),
                      f"{when_label(recap, d.when)} {d.text}" if d else L["alive_end"])
    con.print(table)
