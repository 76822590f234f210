"""Readable forms: action rows ⇄ scenario step strings (scenarios.md grammar) and event-log rows
→ one Japanese line each. Python only; the kernels never see a string.
"""

from __future__ import annotations

from dataclasses import dataclass

from lab.engine import layout as L

SEATS = "AB"
VERBS = {L.A_RETURN: "return", L.A_LEAD: "lead", L.A_ANSWER: "answer", L.A_PASS: "pass",
         L.A_MIOKURI: "miokuri", L.A_BUILD: "build", L.A_FORTIFY: "fortify", L.A_SIEGE: "siege",
         L.A_TACTIC: "tactic", L.A_LOGISTICS: "logistics", L.A_MULLIGAN: "mulligan",
         L.A_KEEP: "keep"}
KINDS = {v: k for k, v in VERBS.items()}
KURUMAGAKARI_TOKEN = "+車懸り"


@dataclass(frozen=True)
class Step:
    """A parsed step: who, what, the named cards (in the order written) and flags."""
    seat: int
    kind: int
    cards: tuple[str, ...] = ()
    kurumagakari: bool = False
    fire: bool = False
    extra: str = ""  # the tactic or castle named

    def key(self):
        return (self.seat, self.kind, tuple(sorted(self.cards)), self.kurumagakari, self.fire,
                self.extra)


class StepSyntaxError(ValueError):
    pass


def parse_step(text: str) -> Step:
    parts = text.split()
    if len(parts) < 2 or parts[0] not in ("A", "B") or parts[1] not in KINDS:
        raise StepSyntaxError(
            f"cannot read step \"{text}\": write `A|B VERB …` with VERB one of "
            f"{', '.join(v for v in KINDS if v not in ('mulligan', 'keep'))}")
    seat = SEATS.index(parts[0])
    kind = KINDS[parts[1]]
    rest = parts[2:]
    kurumagakari = KURUMAGAKARI_TOKEN in rest
    fire = "fire" in rest
    rest = [r for r in rest if r not in (KURUMAGAKARI_TOKEN, "fire")]
    if (kurumagakari and kind not in (L.A_LEAD, L.A_ANSWER)) or (fire and kind != L.A_ANSWER):
        raise StepSyntaxError(f"\"{text}\": +車懸り goes with lead/answer, fire with answer")
    if kind in (L.A_PASS, L.A_MIOKURI, L.A_FORTIFY, L.A_MULLIGAN, L.A_KEEP):
        if rest:
            raise StepSyntaxError(f"\"{text}\": `{parts[1]}` takes no card")
        return Step(seat, kind)
    if not rest:
        raise StepSyntaxError(f"\"{text}\": `{parts[1]}` needs a card")
    if kind in (L.A_LEAD, L.A_ANSWER):
        cards = tuple(x for x in " ".join(rest).replace("、", ",").split(",") if x)
        return Step(seat, kind, cards, kurumagakari, fire)
    if kind == L.A_TACTIC:
        if len(rest) > 2:
            raise StepSyntaxError(f"\"{text}\": `tactic NAME [CARD]`")
        return Step(seat, kind, tuple(rest[1:]), extra=rest[0])
    if len(rest) != 1:
        raise StepSyntaxError(f"\"{text}\": `{parts[1]}` names one card")
    if kind in (L.A_BUILD, L.A_SIEGE, L.A_LOGISTICS):
        return Step(seat, kind, extra=rest[0])
    return Step(seat, kind, (rest[0],))  # return


def row_to_step(row, seat: int, names) -> Step:
    kind = int(row[L.AX_KIND])
    n = int(row[L.AX_N])
    cards = tuple(names[int(row[L.AX_C0 + j])] for j in range(n))
    x = int(row[L.AX_X])
    extra = names[x] if x >= 0 else ""
    if kind == L.A_TACTIC:
        return Step(seat, kind, cards, extra=extra)
    if kind in (L.A_BUILD, L.A_SIEGE, L.A_LOGISTICS):
        return Step(seat, kind, extra=extra)
    return Step(seat, kind, cards, int(row[L.AX_KURUMAGAKARI]) >= 0, bool(row[L.AX_FIRE]), "")


def step_text(step: Step) -> str:
    out = [SEATS[step.seat], VERBS[step.kind]]
    if step.kind == L.A_TACTIC:
        out.append(step.extra)
        out += list(step.cards)
    elif step.kind in (L.A_BUILD, L.A_SIEGE, L.A_LOGISTICS):
        out.append(step.extra)
    elif step.cards:
        out.append(",".join(step.cards))
    if step.kurumagakari:
        out.append(KURUMAGAKARI_TOKEN)
    if step.fire:
        out.append("fire")
    return " ".join(out)


END_LABELS = {L.END_CASTLE_FELL: "落城", L.END_EXHAUSTION: "兵の尽き（城壁判定）",
              L.END_STALEMATE: "手詰まり（城壁判定）", L.END_TURN_LIMIT: "手数上限（城壁判定）"}


def format_events(rows, names, ability_names, armies=("A", "B")) -> list[str]:
    """One Japanese line per event. ``ability_names[card][row]`` names the ability of a row."""
    return [text for _, _, text in event_lines(rows, names, ability_names, armies)]


def event_lines(rows, names, ability_names, armies=("A", "B")) -> list[tuple[int, int, str]]:
    """(seat, event code, line) per told event: the seat the line is about (0 A, 1 B, -1 both
    or nobody), read from the event row (layout.EVENTS), not from the text."""
    lines: list[tuple[int, int, str]] = []
    out: list[str] = []
    i = 0
    rows = [tuple(int(x) for x in r) for r in rows]

    def who(p):
        return f"{SEATS[p]}（{armies[p]}）" if armies[p] not in "AB" else SEATS[p]

    while i < len(rows):
        code, p, card, amt, x = rows[i]
        nm = names[card] if 0 <= card < len(names) else ""
        if code in (L.EV_LEAD, L.EV_ANSWER):
            group = [rows[i]]
            while i + 1 < len(rows) and rows[i + 1][0] == code and rows[i + 1][1] == p \
                    and rows[i + 1][3] > rows[i][3]:
                i += 1
                group.append(rows[i])
            k = group[0][4]
            cards = [names[g[2]] for g in group if g[3] < k]
            extra = " +車懸り" if len(group) > k else ""
            verb = "出陣" if code == L.EV_LEAD else "応戦"
            out.append(f"{who(p)} {verb}: {'・'.join(cards)}{extra}")
        elif code == L.EV_TURN:
            out.append(f"── 第{amt}手番 {who(p)} の先手 ──")
        elif code == L.EV_DRAW:
            out.append(f"{who(p)} 徴兵: {nm}")
        elif code == L.EV_RETURN:
            out.append(f"{who(p)} 帰陣: {nm} を手札へ")
        elif code == L.EV_FLIP:
            out.append(f"{who(p)} 表返し: {amt}枚")
        elif code == L.EV_PASS:
            out.append(f"{who(p)} パス")
        elif code == L.EV_MIOKURI:
            out.append(f"{who(p)} 見送り" + ("（出せる兵なし）" if amt else ""))
        elif code == L.EV_WALL_TO_HAND:
            why = {0: "見送りで城壁を手札へ", 1: "見送りで本拠地を手札へ", 2: "城割りで城壁を手札へ"}
            out.append(f"{who(p)} {why.get(amt, '城壁を手札へ')}")
        elif code == L.EV_BUILD:
            out.append(f"{who(p)} 築城: {nm}" + (f"（天守の {names[amt]} は手札へ）" if amt >= 0 else ""))
        elif code == L.EV_LOGISTICS:
            out.append(f"{who(p)} 兵站: {nm} を兵站へ")
        elif code == L.EV_FORTIFY:
            out.append(f"{who(p)} 総構え: 兵站2枚で城壁を1枚積み増し")
        elif code == L.EV_TACTIC:
            out.append(f"{who(p)} 軍略: {nm}" + (f"（{names[amt]}）" if amt >= 0 else ""))
        elif code == L.EV_SIEGE:
            out.append(f"{who(p)} 籠城: {nm}")
        elif code == L.EV_FIRE:
            out.append(f"{who(p)} 鉄砲: {nm} が撃つ（城壁ダメージなし）")
        elif code == L.EV_WIN:
            out.append(f"{who(p)} 合戦に勝利（{amt}回出陣）")
        elif code == L.EV_DAMAGE:
            out.append(f"{who(1 - p)} の城壁に {amt} ダメージ")
        elif code == L.EV_BREAK:
            where = "討死" if amt else "手札へ"
            what = "本拠地" if x else "城壁"
            out.append(f"{who(p)} の{what}が破られる: {nm}（{where}）")
        elif code == L.EV_DIE:
            out.append(f"{who(p)} 討死: {nm}")
        elif code == L.EV_CAMP:
            out.append(f"{who(p)} {nm} は陣へ（{'表' if amt else '裏'}）")
        elif code == L.EV_RETREAT:
            out.append(f"{who(p)} {nm} は陣へ退く（裏）")
        elif code == L.EV_TRIGGER:
            ab = ability_names.get(card, {}).get(amt, "")
            out.append(f"{who(p)} 〈{ab}〉 {nm} の能力が発動")
        elif code == L.EV_ASSASSINATE:
            out.append(f"{who(p)} 暗殺: {nm} が {names[amt]} を狙う")
        elif code == L.EV_DECOY:
            out.append(f"{who(p)} 影武者が身代わり: {names[amt]} は手札へ")
        elif code == L.EV_STEAL:
            out.append(f"{who(p)} 謀聖: 相手の手札から {nm} を奪う")
        elif code == L.EV_REPAIR:
            out.append(f"{who(p)} 城壁を1枚補修")
        elif code == L.EV_HOLD:
            out.append(f"{who(p)} 〈不焼〉 {nm} が一度だけ持ちこたえる")
        elif code == L.EV_STARVE:
            out.append(f"{who(p)} 兵糧攻め: {nm} は陣へ退く（裏）")
        elif code == L.EV_SURPRISE:
            out.append(f"{who(p)} 奇襲: {nm} が {names[amt]} を討つ")
        elif code == L.EV_TENKA:
            out.append(f"{who(p)} 天下布武: 手札 {amt} 枚を討死させて ∞ に応戦")
        elif code == L.EV_LOGI_PAY:
            out.append(f"{who(p)} 兵站を支払う: {nm}")
        elif code == L.EV_FIELD_CLEARED:
            out.append("場の兵はすべて討死（場は流れる）")
        elif code == L.EV_MULLIGAN:
            out.append(f"{who(p)} マリガン（手札を引き直す）")
        elif code == L.EV_KEEP:
            out.append(f"{who(p)} 手札を確定")
        elif code == L.EV_END:
            if p == 2:
                out.append(f"終局: 引き分け — {END_LABELS.get(amt, '')}")
            else:
                out.append(f"終局: {who(p)} の勝ち — {END_LABELS.get(amt, '')}")
        if out:
            seat = -1 if code in (L.EV_END, L.EV_FIELD_CLEARED) else (
                1 - p if code == L.EV_DAMAGE else p)
            lines.append((seat, code, out.pop()))
        i += 1
    return lines
