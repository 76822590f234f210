"""Readable forms: action rows ⇄ scenario step strings (scenarios.md grammar) and event-log rows
→ one line each, in Japanese (the log's own language) or English, card names as printed in both.
Python only; the kernels never see a string.
"""

from __future__ import annotations

from dataclasses import dataclass

from lab.games.daitenka.engine import layout as L

SEATS = "AB"
VERBS = {
    L.A_RETURN: "return",
    L.A_LEAD: "lead",
    L.A_ANSWER: "answer",
    L.A_PASS: "pass",
    L.A_MIOKURI: "miokuri",
    L.A_BUILD: "build",
    L.A_FORTIFY: "fortify",
    L.A_SIEGE: "siege",
    L.A_TACTIC: "tactic",
    L.A_LOGISTICS: "logistics",
    L.A_MULLIGAN: "mulligan",
    L.A_KEEP: "keep",
}
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
        return (
            self.seat,
            self.kind,
            tuple(sorted(self.cards)),
            self.kurumagakari,
            self.fire,
            self.extra,
        )


class StepSyntaxError(ValueError):
    pass


def parse_step(text: str) -> Step:
    parts = text.split()
    if len(parts) < 2 or parts[0] not in ("A", "B") or parts[1] not in KINDS:
        raise StepSyntaxError(
            f"cannot read step \"{text}\": write `A|B VERB …` with VERB one of "
            f"{', '.join(v for v in KINDS if v not in ('mulligan', 'keep'))}"
        )
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


END_LABELS = {
    L.END_CASTLE_FELL: "落城",
    L.END_EXHAUSTION: "兵の尽き（城壁判定）",
    L.END_STALEMATE: "手詰まり（城壁判定）",
    L.END_TURN_LIMIT: "手数上限（城壁判定）",
}
END_LABELS_EN = {
    L.END_CASTLE_FELL: "落城, the last wall fell",
    L.END_EXHAUSTION: "no units left (judged on walls)",
    L.END_STALEMATE: "stalemate (judged on walls)",
    L.END_TURN_LIMIT: "turn limit (judged on walls)",
}
LANGS = ("ja", "en")

# One line per event, by language: {who}, {card}, {n}, … are filled in by ``event_lines``. Card
# and ability names stay as printed in both; the English keeps the Japanese term of a move in
# brackets the first time a player meets it on the board (出陣, 応戦, 見送り, …).
PHRASES = {
    "ja": {
        "lead": "{who} 出陣: {cards}{extra}",
        "answer": "{who} 応戦: {cards}{extra}",
        "turn": "── 第{n}手番 {who} の先手 ──",
        "draw": "{who} 徴兵: {card}",
        "return": "{who} 帰陣: {card} を手札へ",
        "flip": "{who} 表返し: {n}枚",
        "pass": "{who} パス",
        "miokuri": "{who} 見送り",
        "miokuri_stuck": "{who} 見送り（出せる兵なし）",
        "wall_to_hand_0": "{who} 見送りで城壁を手札へ",
        "wall_to_hand_1": "{who} 見送りで本拠地を手札へ",
        "wall_to_hand_2": "{who} 城割りで城壁を手札へ",
        "wall_to_hand": "{who} 城壁を手札へ",
        "build": "{who} 築城: {card}",
        "build_swap": "{who} 築城: {card}（天守の {other} は手札へ）",
        "logistics": "{who} 兵站: {card} を兵站へ",
        "fortify": "{who} 総構え: 兵站2枚で城壁を1枚積み増し",
        "tactic": "{who} 軍略: {card}",
        "tactic_unit": "{who} 軍略: {card}（{other}）",
        "siege": "{who} 籠城: {card}",
        "fire": "{who} 鉄砲: {card} が撃つ（城壁ダメージなし）",
        "win": "{who} 合戦に勝利（{n}回出陣）",
        "damage": "{who} の城壁に {n} ダメージ",
        "break": "{who} の{what}が破られる: {card}（{where}）",
        "die": "{who} 討死: {card}",
        "camp": "{who} {card} は陣へ（{face}）",
        "retreat": "{who} {card} は陣へ退く（裏）",
        "trigger": "{who} 〈{ability}〉 {card} の能力が発動",
        "assassinate": "{who} 暗殺: {card} が {other} を狙う",
        "decoy": "{who} 影武者が身代わり: {other} は手札へ",
        "steal": "{who} 謀聖: 相手の手札から {card} を奪う",
        "repair": "{who} 城壁を1枚補修",
        "hold": "{who} 〈不焼〉 {card} が一度だけ持ちこたえる",
        "starve": "{who} 兵糧攻め: {card} は陣へ退く（裏）",
        "surprise": "{who} 奇襲: {card} が {other} を討つ",
        "tenka": "{who} 天下布武: 手札 {n} 枚を討死させて ∞ に応戦",
        "logi_pay": "{who} 兵站を支払う: {card}",
        "cleared": "場の兵はすべて討死（場は流れる）",
        "mulligan": "{who} マリガン（手札を引き直す）",
        "keep": "{who} 手札を確定",
        "draw_game": "終局: 引き分け — {end}",
        "won_game": "終局: {who} の勝ち — {end}",
        "who": "{seat}（{army}）",
        "wall": "城壁",
        "castle": "本拠地",
        "to_hand": "手札へ",
        "to_grave": "討死",
        "up": "表",
        "down": "裏",
        "sep": "・",
        # what a viewer may not see (lab.games.daitenka.play.narrate)
        "hidden_draw": "{who} 徴兵: 1枚引く（非公開）",
        "hidden_break": "{who} の城壁が破られる（手札へ・非公開）",
        "hidden_build": "{who} 築城: {card}（天守の札は手札へ・非公開）",
        "named": "{line}: {card}",
    },
    "en": {
        "lead": "{who} leads (出陣): {cards}{extra}",
        "answer": "{who} answers (応戦): {cards}{extra}",
        "turn": "── leader turn {n}: {who} leads ──",
        "draw": "{who} draws: {card}",
        "return": "{who} returns {card} from camp to hand (帰陣)",
        "flip": "{who} turns {n} camp unit(s) face up",
        "pass": "{who} passes",
        "miokuri": "{who} passes the lead (見送り)",
        "miokuri_stuck": "{who} passes the lead (見送り; no set to lead)",
        "wall_to_hand_0": "{who} takes the top wall into hand (見送り)",
        "wall_to_hand_1": "{who} takes the home castle into hand (見送り)",
        "wall_to_hand_2": "{who} breaks a wall into hand (城割り)",
        "wall_to_hand": "{who} takes a wall into hand",
        "build": "{who} builds {card} (築城)",
        "build_swap": "{who} builds {card} (築城); the 天守 card {other} goes to hand",
        "logistics": "{who} puts {card} into logistics (兵站)",
        "fortify": "{who} fortifies (総構え): 2 logistics cards add a wall",
        "tactic": "{who} plays the tactic {card}",
        "tactic_unit": "{who} plays the tactic {card} with {other}",
        "siege": "{who} holds the castle (籠城): {card}",
        "fire": "{who} fires (鉄砲): {card} — no wall damage",
        "win": "{who} wins the battle ({n} set(s) played)",
        "damage": "{who} takes {n} wall damage",
        "break": "{who}'s {what} breaks: {card} ({where})",
        "die": "{who} loses {card} (討死)",
        "camp": "{who}: {card} goes to camp ({face})",
        "retreat": "{who}: {card} retreats to camp (face down)",
        "trigger": "{who}: {card}'s 〈{ability}〉 takes effect",
        "assassinate": "{who} assassinates (暗殺): {card} strikes {other}",
        "decoy": "{who}'s 影武者 takes the blow: {other} returns to hand",
        "steal": "{who} steals {card} from the opponent's hand (謀聖)",
        "repair": "{who} repairs a wall",
        "hold": "{who}: 〈不焼〉 {card} holds once",
        "starve": "{who} (兵糧攻め): {card} retreats to camp (face down)",
        "surprise": "{who} (奇襲): {card} kills {other}",
        "tenka": "{who} (天下布武): {n} hand cards die to answer the ∞",
        "logi_pay": "{who} pays logistics: {card}",
        "cleared": "every unit on the field dies (the field is swept)",
        "mulligan": "{who} redraws the opening hand (mulligan)",
        "keep": "{who} keeps the opening hand",
        "draw_game": "game over: a draw — {end}",
        "won_game": "game over: {who} wins — {end}",
        "who": "{seat} ({army})",
        "wall": "wall",
        "castle": "home castle",
        "to_hand": "to hand",
        "to_grave": "dies",
        "up": "face up",
        "down": "face down",
        "sep": "・",
        "hidden_draw": "{who} draws a card (hidden)",
        "hidden_break": "{who}'s wall breaks (to hand, hidden)",
        "hidden_build": "{who} builds {card} (築城); the 天守 card goes to hand (hidden)",
        "named": "{line}: {card}",
    },
}


def format_events(rows, names, ability_names, armies=("A", "B"), lang: str = "ja") -> list[str]:
    """One line per event (Japanese, or English with ``lang="en"``; card names as printed).
    ``ability_names[card][row]`` names the ability of a row."""
    return [text for _, _, text in event_lines(rows, names, ability_names, armies, lang)]


def who_text(p: int, armies, lang: str = "ja") -> str:
    """A seat as a line names it: A（織田）, or A (織田) in English."""
    if armies[p] in "AB":
        return SEATS[p]
    return PHRASES[lang]["who"].format(seat=SEATS[p], army=armies[p])


def event_lines(
    rows, names, ability_names, armies=("A", "B"), lang: str = "ja"
) -> list[tuple[int, int, str]]:
    """(seat, event code, line) per told event: the seat the line is about (0 A, 1 B, -1 both
    or nobody), read from the event row (layout.EVENTS), not from the text."""
    words = PHRASES[lang]
    ends = END_LABELS if lang == "ja" else END_LABELS_EN
    lines: list[tuple[int, int, str]] = []
    i = 0
    rows = [tuple(int(x) for x in r) for r in rows]

    def say(key, **fields):
        return words[key].format(**fields)

    while i < len(rows):
        code, p, card, amt, x = rows[i]
        nm = names[card] if 0 <= card < len(names) else ""
        who = who_text(p, armies, lang) if p in (0, 1) else ""
        line = None
        if code in (L.EV_LEAD, L.EV_ANSWER):
            group = [rows[i]]
            while (
                i + 1 < len(rows)
                and rows[i + 1][0] == code
                and rows[i + 1][1] == p
                and rows[i + 1][3] > rows[i][3]
            ):
                i += 1
                group.append(rows[i])
            k = group[0][4]
            cards = [names[g[2]] for g in group if g[3] < k]
            extra = " +車懸り" if len(group) > k else ""
            line = say(
                "lead" if code == L.EV_LEAD else "answer",
                who=who,
                cards=words["sep"].join(cards),
                extra=extra,
            )
        elif code == L.EV_TURN:
            line = say("turn", n=amt, who=who)
        elif code == L.EV_DRAW:
            line = say("draw", who=who, card=nm)
        elif code == L.EV_RETURN:
            line = say("return", who=who, card=nm)
        elif code == L.EV_FLIP:
            line = say("flip", who=who, n=amt)
        elif code == L.EV_PASS:
            line = say("pass", who=who)
        elif code == L.EV_MIOKURI:
            line = say("miokuri_stuck" if amt else "miokuri", who=who)
        elif code == L.EV_WALL_TO_HAND:
            line = say(f"wall_to_hand_{amt}" if amt in (0, 1, 2) else "wall_to_hand", who=who)
        elif code == L.EV_BUILD:
            line = (
                say("build_swap", who=who, card=nm, other=names[amt])
                if amt >= 0
                else say("build", who=who, card=nm)
            )
        elif code == L.EV_LOGISTICS:
            line = say("logistics", who=who, card=nm)
        elif code == L.EV_FORTIFY:
            line = say("fortify", who=who)
        elif code == L.EV_TACTIC:
            line = (
                say("tactic_unit", who=who, card=nm, other=names[amt])
                if amt >= 0
                else say("tactic", who=who, card=nm)
            )
        elif code == L.EV_SIEGE:
            line = say("siege", who=who, card=nm)
        elif code == L.EV_FIRE:
            line = say("fire", who=who, card=nm)
        elif code == L.EV_WIN:
            line = say("win", who=who, n=amt)
        elif code == L.EV_DAMAGE:
            line = say("damage", who=who_text(1 - p, armies, lang), n=amt)
        elif code == L.EV_BREAK:
            line = say(
                "break",
                who=who,
                card=nm,
                what=words["castle" if x else "wall"],
                where=words["to_grave" if amt else "to_hand"],
            )
        elif code == L.EV_DIE:
            line = say("die", who=who, card=nm)
        elif code == L.EV_CAMP:
            line = say("camp", who=who, card=nm, face=words["up" if amt else "down"])
        elif code == L.EV_RETREAT:
            line = say("retreat", who=who, card=nm)
        elif code == L.EV_TRIGGER:
            line = say(
                "trigger", who=who, card=nm, ability=ability_names.get(card, {}).get(amt, "")
            )
        elif code == L.EV_ASSASSINATE:
            line = say("assassinate", who=who, card=nm, other=names[amt])
        elif code == L.EV_DECOY:
            line = say("decoy", who=who, other=names[amt])
        elif code == L.EV_STEAL:
            line = say("steal", who=who, card=nm)
        elif code == L.EV_REPAIR:
            line = say("repair", who=who)
        elif code == L.EV_HOLD:
            line = say("hold", who=who, card=nm)
        elif code == L.EV_STARVE:
            line = say("starve", who=who, card=nm)
        elif code == L.EV_SURPRISE:
            line = say("surprise", who=who, card=nm, other=names[amt])
        elif code == L.EV_TENKA:
            line = say("tenka", who=who, n=amt)
        elif code == L.EV_LOGI_PAY:
            line = say("logi_pay", who=who, card=nm)
        elif code == L.EV_FIELD_CLEARED:
            line = say("cleared")
        elif code == L.EV_MULLIGAN:
            line = say("mulligan", who=who)
        elif code == L.EV_KEEP:
            line = say("keep", who=who)
        elif code == L.EV_END:
            line = (
                say("draw_game", end=ends.get(amt, ""))
                if p == 2
                else say("won_game", who=who, end=ends.get(amt, ""))
            )
        if line is not None:
            seat = (
                -1
                if code in (L.EV_END, L.EV_FIELD_CLEARED)
                else (1 - p if code == L.EV_DAMAGE else p)
            )
            lines.append((seat, code, line))
        i += 1
    return lines
