"""The recap as text: the console (rich), Markdown, and a self-contained HTML page whose votes are drawn
as pictures (inline SVG: the seats round the table, an arrow from each voter to the seat voted for — a loop
for a vote for oneself, two arrows side by side for two players voting for each other — each seat coloured
by its card's camp, the sheriff and the candidates marked, abstainers and withdrawn candidates labelled).
No scripts, no outside files: it opens anywhere, offline. The page names a font stack with Chinese glyphs
(Noto/Source Han, WenQuanYi, the Windows and macOS ones), so no character falls back to a box."""

from __future__ import annotations

import math
from html import escape
from pathlib import Path

from narrator.engine.roles import WOLF_CARDS, Role
from narrator.play.recap import Recap, Vote, when_label
from narrator.session.journal import write_atomically

CAMP_COLOURS = {"wolf": "#c0392b", "good": "#2e6fd1", "third": "#8e44ad", "unknown": "#7f8c8d"}
ARROW = "#e67e22"
"""The arrows' colour; the screenshot test looks for it."""
BADGE = "#d4ac0d"
"""The sheriff's mark."""
FONTS = {
    "zh-Hans": ('"Noto Sans CJK SC","Source Han Sans SC","WenQuanYi Zen Hei","WenQuanYi Micro Hei",'
                '"PingFang SC","Hiragino Sans GB","Microsoft YaHei","SimHei",sans-serif'),
    "zh-Hant": ('"Noto Sans CJK TC","Source Han Sans TC","WenQuanYi Zen Hei","WenQuanYi Micro Hei",'
                '"PingFang TC","Microsoft JhengHei","Noto Sans CJK SC","SimHei",sans-serif'),
}
"""CJK fonts first, by name: a browser without a default Chinese font would otherwise draw boxes."""
MUTUAL_OFFSET = 4.0
"""px. Two arrows between the same seats (each voted for the other) run side by side, not on one line."""


def camp_of(role: Role | None) -> str:
    if role is None:
        return "unknown"
    if role in WOLF_CARDS:
        return "wolf"
    if role in (Role.PIPER,):
        return "third"
    return "good"


def vote_title(recap: Recap, vote: Vote) -> str:
    return f"{when_label(recap, f'day{vote.day}')} {vote.title}：{vote.outcome}"


def votes_text(recap: Recap, vote: Vote) -> list[str]:
    """"一号、二号 → 七号（两票）" per target, most votes first; a vote for oneself marked; then who ran,
    who withdrew (a sheriff vote) and who abstained."""
    L = recap.labels
    by_target: dict[int, list[int]] = {}
    for voter, target in vote.ballots:
        by_target.setdefault(target, []).append(voter)
    tally = dict(vote.tally)
    rows = sorted(by_target.items(), key=lambda kv: -tally.get(kv[0], len(kv[1])))
    out = []
    for target, voters in rows:
        n = tally.get(target, len(voters))
        named = "、".join(recap.seat(v) + (L["self_vote"] if v == target else "") for v in voters)
        out.append(f"{named} → {recap.seat(target)}（{recap.script.votes(n)}）")
    if not out:
        out.append(L["result_only"])
    if vote.candidates:
        out.append(f"{L['candidates']}：{recap.seats(vote.candidates)}")
    if vote.withdrawn:
        out.append(f"{L['withdrawn']}：{recap.seats(vote.withdrawn)}")
    if vote.abstained:
        out.append(f"{L['abstain']}：{recap.seats(vote.abstained)}")
    return out


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header),
            *("| " + " | ".join(row) + " |" for row in rows)]


def markdown(recap: Recap) -> str:
    L = recap.labels
    lines = [f"# {recap.title}", "", f"**{recap.result}**", "", f"## {L['story']}", ""]
    for name, notes in recap.story:
        lines.append(f"- **{name}**：{'；'.join(notes)}")
    lines += ["", f"## {L['votes']}", ""]
    for vote in recap.votes:
        lines.append(f"### {vote_title(recap, vote)}")
        lines += [f"- {row}" for row in votes_text(recap, vote)] + [""]
    lines += [f"## {L['deaths']}", ""]
    lines += _table([L["seat_col"], L["cards"], L["when"], L["why"]],
                    [[recap.seat(d.seat), recap.role_name(d.seat), when_label(recap, d.when), d.text]
                     for d in recap.deaths])
    lines += ["", f"## {L['cards']}", ""]
    lines += _table([L["seat_col"], L["cards"], L["end"]],
                    [[recap.seat(s), recap.role_name(s), _end(recap, s)] for s in range(1, recap.players + 1)])
    return "\n".join(lines) + "\n"


def _end(recap: Recap, seat: int) -> str:
    death = next((d for d in recap.deaths if d.seat == seat), None)
    if death is None:
        return recap.labels["alive_end"]
    return f"{when_label(recap, death.when)} {death.text}"


def vote_svg(recap: Recap, vote: Vote, size: int = 340) -> str:
    """One vote as a picture: seats on a circle, arrows voter → target (a loop for a vote for oneself),
    targets ringed by their votes, the sheriff crowned with a gold ring, candidates in a dashed ring."""
    L = recap.labels
    n = max(recap.players, 1)
    c, r, node = size / 2, size / 2 - 38, 13
    font = FONTS.get(recap.lang, FONTS["zh-Hans"]).replace('"', "'")
    pos = {s: (c + r * math.sin(2 * math.pi * (s - 1) / n), c - r * math.cos(2 * math.pi * (s - 1) / n))
           for s in range(1, n + 1)}
    tally = dict(vote.tally)
    ballots = set(vote.ballots)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="vote" width="{size}" height="{size}" '
             f'viewBox="0 0 {size} {size}" role="img" aria-label="{escape(vote_title(recap, vote))}" '
             f'font-family="{font}">',
             '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
             f'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{ARROW}"/></marker></defs>',
             f'<circle cx="{c}" cy="{c}" r="{r}" fill="none" stroke="#ddd" stroke-dasharray="4 4"/>']
    for voter, target in vote.ballots:
        if voter not in pos or target not in pos:
            continue
        if voter == target:
            parts.append(_loop(pos[voter], (c, c), node))
            continue
        (x1, y1), (x2, y2) = pos[voter], pos[target]
        d = math.hypot(x2 - x1, y2 - y1) or 1.0
        ux, uy = (x2 - x1) / d, (y2 - y1) / d
        off = MUTUAL_OFFSET if (target, voter) in ballots else 0.0  # each to its right: side by side
        ox, oy = -uy * off, ux * off
        parts.append(f'<line class="ballot" x1="{x1 + ux * node + ox:.1f}" y1="{y1 + uy * node + oy:.1f}" '
                     f'x2="{x2 - ux * (node + 2) + ox:.1f}" y2="{y2 - uy * (node + 2) + oy:.1f}" stroke="{ARROW}" '
                     'stroke-width="2.5" marker-end="url(#arrow)"/>')
    dead_before = {d.seat for d in recap.deaths if _before(d.when, vote.day)}
    abstained = set(vote.abstained)
    for s, (x, y) in pos.items():
        colour = CAMP_COLOURS[camp_of(recap.roles.get(s))]
        got = tally.get(s, 0)
        ring = f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{node + 3 + min(got, 6):.1f}" fill="none" stroke="{ARROW}" ' \
               f'stroke-width="{1.5 + min(got, 6):.1f}" opacity="0.35"/>' if got else ""
        if s in vote.candidates:
            ring += (f'<circle class="candidate" cx="{x:.1f}" cy="{y:.1f}" r="{node + 5}" fill="none" '
                     f'stroke="#555" stroke-width="1.2" stroke-dasharray="3 2"/>')
        if s == vote.sheriff:
            ring += (f'<circle class="sheriff" cx="{x:.1f}" cy="{y:.1f}" r="{node + 2}" fill="none" '
                     f'stroke="{BADGE}" stroke-width="3"/>')
        faded = ' opacity="0.35"' if s in dead_before else ""
        parts.append(f'{ring}<g{faded}><circle cx="{x:.1f}" cy="{y:.1f}" r="{node}" fill="{colour}"/>'
                     f'<text x="{x:.1f}" y="{y + 4:.1f}" text-anchor="middle" font-size="12" fill="#fff">{s}</text>'
                     '</g>')
        mark = (L["sheriff"] if s == vote.sheriff else L["withdrawn"] if s in vote.withdrawn
                else L["abstain"] if s in abstained else "")
        if mark:
            # outside the circle, away from the centre
            mx, my = c + (x - c) * (r + node + 14) / r, c + (y - c) * (r + node + 14) / r
            parts.append(f'<text class="mark" x="{mx:.1f}" y="{my + 4:.1f}" text-anchor="middle" font-size="11" '
                         f'fill="#444">{escape(mark)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _loop(at: tuple[float, float], centre: tuple[float, float], node: int) -> str:
    """A vote for oneself: a small loop on the inner side of the seat, ending in an arrow."""
    (x, y), (cx, cy) = at, centre
    d = math.hypot(cx - x, cy - y) or 1.0
    ux, uy = (cx - x) / d, (cy - y) / d  # towards the centre
    px, py = -uy, ux
    a = (x + (ux + px * 0.6) * node, y + (uy + py * 0.6) * node)
    b = (x + (ux - px * 0.6) * node, y + (uy - py * 0.6) * node)
    c1 = (x + (ux * 3 + px * 1.4) * node, y + (uy * 3 + py * 1.4) * node)
    c2 = (x + (ux * 3 - px * 1.4) * node, y + (uy * 3 - py * 1.4) * node)
    return (f'<path class="self-vote" d="M{a[0]:.1f},{a[1]:.1f} C{c1[0]:.1f},{c1[1]:.1f} {c2[0]:.1f},{c2[1]:.1f} '
            f'{b[0]:.1f},{b[1]:.1f}" fill="none" stroke="{ARROW}" stroke-width="2.5" marker-end="url(#arrow)" '
            '/>')


def _before(when: str, day: int) -> bool:
    """A death before the vote of `day`: any night up to `day`, any earlier day."""
    digits = "".join(ch for ch in when if ch.isdigit())
    n = int(digits) if digits else 0
    return n < day or (n == day and when.startswith("night"))


CSS = """
body{font-family:%s;margin:2rem auto;max-width:60rem;
padding:0 1rem;color:#222;background:#fafafa}h1{margin-bottom:.2rem}.result{font-size:1.3rem;font-weight:bold;
color:#b03a2e}section{margin:1.5rem 0}.votes{display:flex;flex-wrap:wrap;gap:1rem}.card{background:#fff;
border:1px solid #e3e3e3;border-radius:8px;padding:.6rem 1rem;width:22rem}table{border-collapse:collapse}
td,th{padding:.25rem .7rem;border-bottom:1px solid #eee;text-align:left}.wolf{color:#c0392b}.good{color:#2e6fd1}
.third{color:#8e44ad}.legend span{margin-right:1rem}.dead{color:#999}
"""


def html(recap: Recap) -> str:
    L = recap.labels
    e = escape
    body = [f"<h1>{e(recap.title)}</h1>", f'<p class="result">{e(recap.result)}</p>',
            f"<section><h2>{e(L['story'])}</h2><ul>"]
    for name, notes in recap.story:
        body.append(f"<li><b>{e(name)}</b>：{e('；'.join(notes))}</li>")
    body.append(f"</ul></section><section><h2>{e(L['vote_picture'])}</h2>")
    body.append('<p class="legend">' + "".join(
        f'<span class="{k}">● {e(v)}</span>' for k, v in
        (("wolf", recap.script.camp("wolves")), ("good", recap.script.camp("good")))) +
        f'<span style="color:{BADGE}">◯ {e(L["sheriff"])}</span><span>◌ {e(L["candidates"])}</span></p>')
    body.append('<div class="votes">')
    for vote in recap.votes:
        body.append(f'<div class="card"><h3>{e(vote_title(recap, vote))}</h3>{vote_svg(recap, vote)}<ul>'
                    + "".join(f"<li>{e(row)}</li>" for row in votes_text(recap, vote)) + "</ul></div>")
    body.append(f"</div></section><section><h2>{e(L['deaths'])}</h2><table>")
    body.append("<tr>" + "".join(f"<th>{e(h)}</th>" for h in (L["seat_col"], L["cards"], L["when"], L["why"]))
                + "</tr>")
    for d in recap.deaths:
        body.append(f"<tr><td>{e(recap.seat(d.seat))}</td><td class=\"{camp_of(recap.roles.get(d.seat))}\">"
                    f"{e(recap.role_name(d.seat))}</td><td>{e(when_label(recap, d.when))}</td>"
                    f"<td>{e(d.text)}</td></tr>")
    body.append(f"</table></section><section><h2>{e(L['cards'])}</h2><table>")
    body.append("<tr>" + "".join(f"<th>{e(h)}</th>" for h in (L["seat_col"], L["cards"], L["end"])) + "</tr>")
    dead = {d.seat for d in recap.deaths}
    for s in range(1, recap.players + 1):
        body.append(f"<tr><td>{e(recap.seat(s))}</td><td class=\"{camp_of(recap.roles.get(s))}\">"
                    f"{e(recap.role_name(s))}</td><td class=\"{'dead' if s in dead else ''}\">"
                    f"{e(_end(recap, s))}</td></tr>")
    body.append("</table></section>")
    lang = "zh-Hant" if recap.lang == "zh-Hant" else "zh-Hans"
    css = CSS % FONTS[lang]
    return (f'<!DOCTYPE html><html lang="{lang}"><head><meta charset="utf-8"><title>{e(recap.title)}</title>'
            f'<meta name="viewport" content="width=device-width,initial-scale=1"><style>{css}</style></head>'
            f"<body>{''.join(body)}</body></html>\n")


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
    from rich.markup import escape as markup_escape
    from rich.table import Table

    con = console if isinstance(console, Console) else Console(highlight=False)
    L = recap.labels
    con.rule(recap.title)
    con.print(f"[bold]{markup_escape(recap.result)}[/bold]")
    for name, notes in recap.story:
        con.print(f"[cyan]{name}[/cyan]：{markup_escape('；'.join(notes))}")
    for vote in recap.votes:
        con.print(f"[yellow]{markup_escape(vote_title(recap, vote))}[/yellow]")
        for row in votes_text(recap, vote):
            con.print(f"   {markup_escape(row)}")
    table = Table(title=L["cards"])
    for col in (L["seat_col"], L["cards"], L["end"]):
        table.add_column(col)
    for s in range(1, recap.players + 1):
        table.add_row(recap.seat(s), recap.role_name(s), _end(recap, s))
    con.print(table)
