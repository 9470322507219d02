"""The released data, and a small phone simulator that runs the benchmark's protocol end to end.

Released data (see ``PROVENANCE.md``): the 149 main-pool task records with capability levels, the
AndroidWorld tasks annotated the same way, and the leaderboard's per-model numbers.

The simulator stands in for the Android emulator and its 27 apps. :class:`PhoneEnv` is a
``gymnasium`` tool environment (:class:`icml26.agents.env.ToolEnv`) over one phone with six apps
(notes, settings, stopwatch, messages, a drawing canvas, a shop catalogue); an agent sees the screen
as an accessibility tree (resource id, label, centre coordinates) and acts with ``tap(x, y)``,
``type_text(text)``, ``back()`` and ``wait()``, or answers in plain text. :func:`build_tasks` makes
28 tasks over the benchmark's nine categories, each checked programmatically from the app state or
the answer, each carrying the capability levels of a real task of its category (drawn from the
released metadata, so levels stay as correlated with category as they are in the benchmark). Every
task runs in the five stability modes: ``chinese`` (labels and goal in Chinese, resource ids
unchanged), ``variation`` (a paraphrased goal), ``dark`` (inverted palette: only the rendered image
changes) and ``pad`` (a two-column tablet layout: every coordinate moves). :func:`render` draws a
screen with Pillow; it is not wired into the endpoint path, which sends the text observation only, so
the dark mode is inert for every agent we run. Answer checks compare ASCII text only (an answer in
Chinese fails them), and a function-assistance goal names its target word, so a policy that echoes
the goal passes those three tasks. The tasks' capability levels are carried but no diagnostic is
computed on the simulated runs.
"""

from __future__ import annotations

import gzip
import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from icml26.agents.env import Tool, ToolCall, ToolEnv
from icml26.core.validate import as_rng, check_int

_HERE = Path(__file__).parent


@lru_cache(maxsize=None)
def _load(name: str) -> Any:
    with gzip.open(_HERE / f"{name}.json.gz", "rt", encoding="utf-8") as f:
        return json.load(f)


def load_metadata() -> list[dict[str, Any]]:
    """All 189 records of ``task_metadata.json`` (149 main-pool tasks and 40 stability variants)."""
    return [dict(t) for t in _load("task_metadata")]


def main_pool() -> list[dict[str, Any]]:
    """The 149 main-pool tasks (the records that carry capability levels)."""
    return [t for t in load_metadata() if "ability" in t]


def load_metadata_aw() -> list[dict[str, Any]]:
    """AndroidWorld's tasks with the same capability annotation (records with levels only)."""
    return [dict(t) for t in _load("task_metadata_aw") if "ability" in t]


def load_leaderboard() -> list[dict[str, Any]]:
    """The leaderboard's model entries (scores, and where released stability, cost, diagnostics)."""
    return [dict(m) for m in _load("leaderboard")["models"]]


# ---------------------------------------------------------------------------------------------
# The phone
# ---------------------------------------------------------------------------------------------
_ZH = {"Notes": "笔记", "Settings": "设置", "Clock": "时钟", "Messages": "信息", "Draw": "画板", "Shop": "商店",
       "New note": "新建笔记", "Menu": "菜单", "Delete": "删除", "Save": "保存", "Export notes": "导出笔记",
       "Sort notes": "笔记排序", "Note settings": "笔记设置", "Bluetooth: on": "蓝牙：开", "Bluetooth: off": "蓝牙：关",
       "Display": "显示", "Brighter": "调亮", "Dimmer": "调暗", "Start": "开始", "Pause": "暂停", "Next page": "下一页",
       "Previous page": "上一页", "Decline": "拒绝", "Incoming call": "来电", "Home": "主屏幕", "Canvas": "画布",
       "Title": "标题", "Stopwatch": "秒表", "Brightness": "亮度"}
W_PHONE, H_PHONE, W_PAD, H_PAD = 360, 640, 1024, 640


@dataclass(frozen=True)
class Widget:
    rid: str      # resource id (language-independent)
    label: str
    x: int
    y: int
    w: int
    h: int

    @property
    def centre(self) -> tuple[int, int]:
        return self.x + self.w // 2, self.y + self.h // 2

    def hit(self, x: int, y: int) -> bool:
        return self.x <= x < self.x + self.w and self.y <= y < self.y + self.h


@dataclass
class Task:
    """One simulated task: a category, a goal in three wordings, its parameters, its capability
    levels (copied from the real task ``like``) and how it is verified (``p`` state / ``m`` answer)."""

    name: str
    category: str
    goals: dict[str, str]            # "en", "zh", "variation"
    params: dict[str, Any]
    ability: dict[str, int]
    like: str
    evaluation_method: str = "p"
    world: dict[str, Any] = field(default_factory=dict)


_ITEMS = ("lamp", "mug", "scarf", "kettle", "pillow", "basket", "candle", "clock", "vase", "towel", "jar", "bowl")
_COLOURS = ("red", "blue", "green", "black", "white")
_SENDERS = ("Ana", "Ben", "Chen", "Dara", "Eli")


class PhoneEnv(ToolEnv):
    """One task of :func:`build_tasks` in one stability mode (``variant``)."""

    def __init__(self, task: Task, *, variant: str = "original", max_steps: int = 40, max_tokens: int = 20000):
        super().__init__(max_steps=max_steps, max_tokens=max_tokens)
        if not isinstance(task, Task):
            raise TypeError(f"task must be a Task from build_tasks(), got {type(task).__name__}")
        if variant not in ("original", "chinese", "variation", "dark", "pad"):
            raise ValueError(f"variant must be one of original/chinese/variation/dark/pad, got {variant!r}")
        self.task, self.variant = task, variant
        self.tools = {
            "tap": Tool("tap", "Tap the screen at pixel (x, y).", {"x": "int", "y": "int"}, self._tap),
            "type_text": Tool("type_text", "Type text into the focused field.", {"text": "str"}, self._type),
            "back": Tool("back", "Press the system back button.", {}, self._back),
            "wait": Tool("wait", "Wait one second.", {}, self._wait),
        }

    # -- state -------------------------------------------------------------------------------
    def _reset(self, rng: np.random.Generator) -> str:
        w = self.task.world
        self.s = {"screen": "home", "stack": [], "notes": list(w.get("notes", [])), "bluetooth": w.get("bluetooth", True),
                  "brightness": 2, "clock": 0, "running": False, "paused_at": None, "dots": [], "typed": "",
                  "messages": list(w.get("messages", [])), "open_msg": None, "open_note": None, "page": 0,
                  "popup": False, "popup_done": False, "t": 0}
        return self._observe()

    def _tr(self, text: str) -> str:
        return _ZH.get(text, text) if self.variant == "chinese" else text

    def _goal(self) -> str:
        key = {"chinese": "zh", "variation": "variation"}.get(self.variant, "en")
        return self.task.goals[key]

    def screen(self) -> tuple[str, list[tuple[str, str]], list[str]]:
        """(title, [(resource id, label)], [text lines]) of the current screen."""
        s, w = self.s, self.task.world
        if s["popup"]:
            return "Incoming call", [("btn_decline", "Decline")], [f"{_SENDERS[0]} is calling"]
        sc = s["screen"]
        if sc == "home":
            return "Home", [("app_notes", "Notes"), ("app_settings", "Settings"), ("app_clock", "Clock"),
                            ("app_messages", "Messages"), ("app_draw", "Draw"), ("app_shop", "Shop")], []
        if sc == "notes":
            return "Notes", [(f"note_{i}", n["title"]) for i, n in enumerate(s["notes"])] + \
                [("btn_new", "New note"), ("btn_menu", "Menu")], []
        if sc == "note_view":
            n = s["notes"][s["open_note"]]
            return n["title"], [("btn_delete", "Delete")], [n["body"]]
        if sc == "note_new":
            return "New note", [("field_title", "Title"), ("btn_save", "Save")], [f"typed: {s['typed']}"]
        if sc == "notes_menu":
            return "Menu", [("menu_export", "Export notes"), ("menu_sort", "Sort notes"),
                            ("menu_settings", "Note settings")], []
        if sc.startswith("menu_"):
            return {"menu_export": "Export notes", "menu_sort": "Sort notes", "menu_settings": "Note settings"}[sc], [], \
                [f"function: {sc[5:]}"]
        if sc == "settings":
            return "Settings", [("tgl_bluetooth", "Bluetooth: " + ("on" if s["bluetooth"] else "off")),
                                ("item_display", "Display")], []
        if sc == "display":
            return "Display", [("btn_dimmer", "Dimmer"), ("btn_brighter", "Brighter")], [f"Brightness {s['brightness']}/5"]
        if sc == "clock":
            return "Stopwatch", [("btn_start", "Start"), ("btn_pause", "Pause")], [f"time 00:{s['clock']:02d}"]
        if sc == "messages":
            return "Messages", [(f"msg_{i}", m["sender"]) for i, m in enumerate(s["messages"])], []
        if sc == "msg_view":
            m = s["messages"][s["open_msg"]]
            return m["sender"], [], [m["body"]]
        if sc == "draw":
            x0, y0, x1, y1 = self._target_box()
            return "Canvas", [("canvas", "Canvas")], [f"target box ({x0},{y0})-({x1},{y1})"]
        if sc == "shop":
            items = w.get("items", [])
            per = 4
            page = items[s["page"] * per:(s["page"] + 1) * per]
            texts = [f"{it['name']} | {it['colour']} | ${it['price']}" for it in page]
            return f"Shop page {s['page'] + 1}", [("btn_prev", "Previous page"), ("btn_next", "Next page")], texts
        raise RuntimeError(f"unknown screen {sc}")  # pragma: no cover

    def _target_box(self) -> tuple[int, int, int, int]:
        x, y, size = self.task.params.get("box", (120, 300, 24))
        if self.variant == "pad":
            x, y = x * 2 + 150, y - 60
        return x, y, x + size, y + size

    def layout(self) -> list[Widget]:
        """Widgets with their pixel boxes in this mode (phone: one column; pad: two columns)."""
        _, widgets, _ = self.screen()
        out = []
        for i, (rid, label) in enumerate(widgets):
            if rid == "canvas":
                out.append(Widget(rid, self._tr(label), 0, 100, W_PAD if self.variant == "pad" else W_PHONE, 500))
                continue
            if self.variant == "pad":
                out.append(Widget(rid, self._tr(label), 40 + 500 * (i % 2), 120 + 70 * (i // 2), 440, 56))
            else:
                out.append(Widget(rid, self._tr(label), 20, 120 + 64 * i, 320, 52))
        return out

    def _observe(self, note: str = "") -> str:
        title, _, texts = self.screen()
        lines = [f"GOAL: {self._goal()}", f"SCREEN: {self._tr(title)}"]
        lines += [f"[{w.rid}] {w.label} @ ({w.centre[0]},{w.centre[1]})" for w in self.layout()]
        lines += [f"TEXT: {t}" for t in texts]
        if note:
            lines.append(f"NOTE: {note}")
        return "\n".join(lines)

    # -- tools -------------------------------------------------------------------------------
    def _tick(self) -> None:
        s, w = self.s, self.task.world
        s["t"] += 1
        if s["running"]:
            s["clock"] += 1
        if w.get("popup_at") is not None and s["t"] == w["popup_at"] and not s["popup_done"]:
            s["popup"] = True

    def _go(self, screen: str) -> None:
        self.s["stack"].append(self.s["screen"])
        self.s["screen"] = screen

    def _tap(self, x: int, y: int) -> str:
        s = self.s
        hit = next((w for w in self.layout() if w.hit(x, y)), None)
        self._tick_after = True
        if s["popup"]:
            if hit is not None and hit.rid == "btn_decline":
                s["popup"], s["popup_done"] = False, True
            self._tick()
            return self._observe()
        if hit is None:
            self._tick()
            return self._observe("nothing there")
        rid = hit.rid
        apps = {"app_notes": "notes", "app_settings": "settings", "app_clock": "clock", "app_messages": "messages",
                "app_draw": "draw", "app_shop": "shop"}
        if rid in apps:
            s["stack"], s["screen"] = ["home"], apps[rid]
        elif rid.startswith("note_"):
            s["open_note"] = int(rid[5:])
            self._go("note_view")
        elif rid == "btn_delete":
            s["notes"].pop(s["open_note"])
            s["screen"] = "notes"
            s["stack"] = ["home"]
        elif rid == "btn_new":
            s["typed"] = ""
            self._go("note_new")
        elif rid == "btn_save":
            if s["typed"]:
                s["notes"].append({"title": s["typed"], "body": ""})
            s["screen"], s["stack"] = "notes", ["home"]
        elif rid == "btn_menu":
            self._go("notes_menu")
        elif rid.startswith("menu_"):
            self._go(rid)
        elif rid == "tgl_bluetooth":
            s["bluetooth"] = not s["bluetooth"]
        elif rid == "item_display":
            self._go("display")
        elif rid == "btn_brighter":
            s["brightness"] = min(5, s["brightness"] + 1)
        elif rid == "btn_dimmer":
            s["brightness"] = max(0, s["brightness"] - 1)
        elif rid == "btn_start":
            s["running"] = True
        elif rid == "btn_pause":
            if s["running"]:
                s["running"], s["paused_at"] = False, s["clock"]
        elif rid.startswith("msg_"):
            s["open_msg"] = int(rid[4:])
            self._go("msg_view")
        elif rid == "canvas":
            s["dots"].append((x, y))
        elif rid == "btn_next":
            s["page"] = min(s["page"] + 1, max(0, (len(self.task.world.get("items", [])) - 1) // 4))
        elif rid == "btn_prev":
            s["page"] = max(0, s["page"] - 1)
        self._tick()
        return self._observe()

    def _type(self, text: str) -> str:
        if self.s["screen"] == "note_new" and not self.s["popup"]:
            self.s["typed"] += text
            self._tick()
            return self._observe()
        self._tick()
        return self._observe("no text field is focused")

    def _back(self) -> str:
        s = self.s
        if not s["popup"] and s["stack"]:
            s["screen"] = s["stack"].pop()
        self._tick()
        return self._observe()

    def _wait(self) -> str:
        self._tick()
        return self._observe()

    # -- verification ------------------------------------------------------------------------
    def _answer(self, text: str) -> tuple[str, float]:
        ok = verify(self.task, self.s, text, self)
        return ("task complete" if ok else "task failed"), float(ok)


def _norm(text: str) -> str:
    """Lower-case, punctuation to spaces; letters of any script are kept (a Chinese answer stays Chinese)."""
    return re.sub(r"[^\w$ ]", " ", str(text).lower()).strip()


_FA_LABEL = {"export": "Export notes", "sort": "Sort notes", "settings": "Note settings"}
_REFUSALS = ("cannot", "refuse", "not found", "already", "no such", "无法", "不能", "找不到", "已经", "不存在")


def verify(task: Task, state: dict[str, Any], answer: str, env: PhoneEnv | None = None) -> bool:
    """Did the episode achieve ``task``? State checks for ``p`` tasks, answer checks for ``m`` tasks."""
    p, cat, w = task.params, task.category, task.world
    a = _norm(answer)
    if cat == "fa":
        return p["target"] in a or _ZH[_FA_LABEL[p["target"]]] in a
    if cat == "cf":
        unchanged = len(state["notes"]) == len(w.get("notes", [])) and state["bluetooth"] == w.get("bluetooth", True)
        return unchanged and any(k in a for k in _REFUSALS)
    if cat == "va":
        if p["kind"] == "bright":
            return state["brightness"] == 5
        if p["kind"] == "bt_off":
            return state["bluetooth"] is False
        titles = [n["title"] for n in state["notes"]]
        return p["title"] not in titles and len(titles) == len(w["notes"]) - 1
    if cat == "mr":
        return any(n["title"] == p["code"] for n in state["notes"])
    if cat == "gsa":
        return state["paused_at"] == p["at"]
    if cat == "guim":
        x0, y0, x1, y1 = env._target_box() if env is not None else (0, 0, 0, 0)
        return len(state["dots"]) >= 1 and all(x0 <= x < x1 and y0 <= y < y1 for x, y in state["dots"])
    if cat in ("hgb", "bc"):
        return _norm(p["answer"]) in a
    if cat == "nr":
        return state["bluetooth"] is False and state["popup_done"]
    raise ValueError(f"unknown category {cat!r}")  # pragma: no cover


def _real_like(category: str, rng: np.random.Generator) -> tuple[str, dict[str, int], str]:
    from icml26.agents.venusbench_mobile.method import category_of

    pool = [t for t in main_pool() if category_of(t) == category]
    t = pool[int(rng.integers(len(pool)))]
    return t["task_name"], dict(t["ability"]), t["evaluation_method"]


def build_tasks(seed: int = 0) -> list[Task]:
    """The 28 simulated tasks (3 per category, 4 hard-browsing), their worlds drawn with ``seed``."""
    rng = as_rng("seed", check_int("seed", seed, minimum=0))
    tasks: list[Task] = []

    def add(cat: str, name: str, en: str, zh: str, var: str, params: dict[str, Any], world: dict[str, Any]) -> None:
        like, ability, method = _real_like(cat, rng)
        tasks.append(Task(name, cat, {"en": en, "zh": zh, "variation": var}, params, ability, like,
                          "m" if cat in ("fa", "hgb", "bc", "cf") else method if method else "p", world))

    notes = [{"title": t, "body": f"about {t.lower()}"} for t in ("Groceries", "Trip plan", "Recipes", "Budget")]
    for fn, label in (("export", "Export notes"), ("sort", "Sort notes"), ("settings", "Note settings")):
        add("fa", f"FuncAssistNotes{fn.title()}", f"Where in Notes can I {label.lower()}? Tell me the screen's name.",
            f"在笔记应用里哪里可以{_ZH[label]}？告诉我该页面的名称。",
            f"I want to {label.lower()} in the Notes app; which screen does that? Answer with its name.",
            {"target": fn, "path": ["app_notes", "btn_menu", f"menu_{fn}"]}, {"notes": notes})
    add("cf", "RefusalNotesDeleteMissing", "Delete the note titled 'Holiday'.", "删除标题为“Holiday”的笔记。",
        "Please remove my note called 'Holiday'.", {"title": "Holiday"}, {"notes": notes})
    add("cf", "RefusalNotesDeleteMissing2", "Delete the note titled 'Gym'.", "删除标题为“Gym”的笔记。",
        "Get rid of the 'Gym' note.", {"title": "Gym"}, {"notes": notes})
    add("cf", "RefusalBluetoothAlreadyOn", "Turn Bluetooth on.", "打开蓝牙。", "Switch Bluetooth on for me.",
        {"bt": True}, {"notes": notes, "bluetooth": True})
    add("va", "VagueBrightnessMax", "Make the screen as bright as it goes.", "把屏幕调到最亮。",
        "The display is too dark, crank it all the way up.", {"kind": "bright"}, {"notes": notes})
    add("va", "VagueBluetoothOff", "I don't want anything connecting to my phone wirelessly.", "我不想让任何设备无线连接我的手机。",
        "Stop other devices from pairing with the phone.", {"kind": "bt_off"}, {"notes": notes, "bluetooth": True})
    add("va", "VagueDeleteShopping", "Get rid of my shopping list.", "删掉我的购物清单。", "I no longer need the list of "
        "things to buy; remove it.", {"kind": "delete", "title": "Groceries"}, {"notes": notes})
    for i in range(3):
        code = str(int(rng.integers(1000, 10000)))
        sender = _SENDERS[1 + i]
        msgs = [{"sender": s, "body": f"hi from {s}" if s != sender else f"the code is {code}"} for s in _SENDERS[1:]]
        add("mr", f"MultiRoundCodeToNote{i}", f"Read the code in {sender}'s message, then create a note titled with that code.",
            f"读取{sender}信息中的验证码，然后新建一条以该验证码为标题的笔记。",
            f"{sender} texted me a code; make a new note whose title is exactly that code.",
            {"code": code, "sender": sender}, {"notes": notes, "messages": msgs})
    for at in (5, 7, 9):
        add("gsa", f"GSAStopwatchPauseAt{at}", f"Start the stopwatch and pause it exactly at 00:{at:02d}.",
            f"启动秒表，并在 00:{at:02d} 时准确暂停。", f"Run the stopwatch and stop it when it reads {at} seconds.",
            {"at": at}, {})
    for i, size in enumerate((40, 24, 12)):
        box = (int(rng.integers(40, 280)), int(rng.integers(200, 500)), size)
        add("guim", f"GUIMDotInBox{i}", "Draw a dot inside the target box on the canvas.", "在画布的目标框内画一个点。",
            "Put a single dot within the highlighted box.", {"box": box}, {})
    for i, depth in enumerate((1, 2, 3, 4)):
        items = [{"name": n, "colour": _COLOURS[int(rng.integers(5))], "price": int(rng.integers(3, 60))}
                 for n in rng.permutation(_ITEMS)]
        target = items[min(4 * depth + int(rng.integers(4)), len(items) - 1)]
        add("hgb", f"GUIBrowsingShopPrice{i}", f"What does the {target['name']} cost in the Shop? Answer the price.",
            f"商店里的{target['name']}多少钱？回答价格。", f"Find the price of the {target['name']} in the Shop app.",
            {"answer": f"${target['price']}", "item": target["name"]}, {"items": items})
    for i, at in enumerate((1, 1, 2)):
        add("nr", f"NoiseResistBluetoothOffCall{i}", "Turn Bluetooth off.", "关闭蓝牙。", "Switch off Bluetooth.",
            {}, {"bluetooth": True, "popup_at": at})
    for i in range(3):
        items = [{"name": n, "colour": _COLOURS[int(rng.integers(5))], "price": int(rng.integers(3, 60))}
                 for n in rng.permutation(_ITEMS)]
        k = int(rng.integers(len(items)))
        colour, cap = items[k]["colour"], items[k]["price"] + 1
        cands = [it for it in items if it["colour"] == colour and it["price"] < cap]
        cands.sort(key=lambda it: it["price"])
        winner = cands[0]
        add("bc", f"BrowsecompShopCheapest{i}", f"Which {colour} item in the Shop is the cheapest? Answer its name.",
            f"商店里最便宜的{colour}商品是哪一个？回答其名称。", f"Among the {colour} things sold in the Shop, name the "
            "one with the lowest price.", {"answer": winner["name"], "colour": colour}, {"items": items})
    return tasks


# ---------------------------------------------------------------------------------------------
# Scripted agents
# ---------------------------------------------------------------------------------------------
def parse_screen(observation: str) -> dict[str, Any]:
    """Widgets {rid: (label, (x, y))}, text lines and the title from an observation.

    Works on the observation as sent and on one flattened to a single line (as a perception-noise
    policy passes it on), so a lost word hides what it belonged to and nothing else."""
    flat = " ".join(observation.split())
    widgets = {m.group(1): (m.group(2), (int(m.group(3)), int(m.group(4))))
               for m in re.finditer(r"\[(\S+?)\] (.*?) @ \((-?\d+),(-?\d+)\)", flat)}
    texts = [m.group(1).strip() for m in re.finditer(r"TEXT: (.*?)(?= TEXT: | NOTE: |$)", flat)]
    m = re.search(r"SCREEN: (.*?)(?= \[| TEXT: | NOTE: |$)", flat)
    return {"widgets": widgets, "texts": texts, "title": m.group(1) if m else ""}


def _tap(widgets: dict[str, Any], rid: str) -> ToolCall | None:
    if rid not in widgets:
        return None
    x, y = widgets[rid][1]
    return ToolCall("tap", {"x": x, "y": y})


def oracle_solver(task: Task, *, by_label: bool = False):
    """A solver ``(observation, history) -> action`` that completes ``task`` from what it sees.

    It reads the task's parameters (the goal's content), never the environment's state. With
    ``by_label=True`` it finds widgets by their English label instead of their resource id (so it
    fails when labels are translated): an agent that learned the apps' English UI."""
    labels = {"app_notes": "Notes", "app_settings": "Settings", "app_clock": "Clock", "app_messages": "Messages",
              "app_draw": "Draw", "app_shop": "Shop", "btn_menu": "Menu", "btn_new": "New note", "btn_save": "Save",
              "btn_delete": "Delete", "tgl_bluetooth": "Bluetooth", "item_display": "Display",
              "btn_brighter": "Brighter", "btn_start": "Start", "btn_pause": "Pause", "btn_next": "Next page",
              "btn_decline": "Decline", "menu_export": "Export notes", "menu_sort": "Sort notes",
              "menu_settings": "Note settings", "canvas": "Canvas"}

    def find(widgets: dict[str, Any], rid: str) -> ToolCall | None:
        if not by_label or rid.startswith(("note_", "msg_")):
            return _tap(widgets, rid)
        for r, (label, _) in widgets.items():
            if label.startswith(labels.get(rid, "\0")):
                return _tap(widgets, r)
        return None

    def solve(observation: str, history: list) -> Any:
        try:
            action = _solve(observation, history)
        except (ValueError, IndexError, KeyError):  # a screen garbled by perception noise: look again
            return ToolCall("wait", {})
        return ToolCall("back", {}) if action is None else action

    def _solve(observation: str, history: list) -> Any:
        scr = parse_screen(observation)
        wd, texts, title = scr["widgets"], scr["texts"], scr["title"]
        if "btn_decline" in wd:
            return find(wd, "btn_decline") or ToolCall("back", {})
        cat, p = task.category, task.params
        on = set(wd)

        def goto(app: str) -> Any:
            if "app_notes" in on:
                return find(wd, app) or ToolCall("back", {})
            return ToolCall("back", {})

        if cat == "fa":
            if any(t.startswith("function: ") for t in texts):
                return f"It is under Menu > {title}: the {p['target']} screen"
            for rid in p["path"]:
                if rid in on:
                    return find(wd, rid) or ToolCall("back", {})
            return goto("app_notes")
        if cat == "cf":
            if p.get("bt"):
                if "tgl_bluetooth" in on:
                    label = wd["tgl_bluetooth"][0]
                    return "Bluetooth is already on, so there is nothing to do" if label.endswith(("on", "开")) \
                        else find(wd, "tgl_bluetooth")
                if "item_display" in on:
                    return ToolCall("back", {})
                return goto("app_settings")
            if "btn_new" in on:
                titles = [lab for r, (lab, _) in wd.items() if r.startswith("note_")]
                return f"I cannot: there is no note titled {p['title']}" if p["title"] not in titles else \
                    _tap(wd, next(r for r, (lab, _) in wd.items() if lab == p["title"]))
            return goto("app_notes")
        if cat == "va":
            if p["kind"] == "bright":
                if "btn_brighter" in on:
                    return "done" if any(t.startswith(("Brightness 5", "亮度 5")) or "5/5" in t for t in texts) \
                        else find(wd, "btn_brighter")
                if "item_display" in on:
                    return find(wd, "item_display")
                return goto("app_settings")
            if p["kind"] == "bt_off":
                if "tgl_bluetooth" in on:
                    return "done" if wd["tgl_bluetooth"][0].endswith(("off", "关")) else find(wd, "tgl_bluetooth")
                return goto("app_settings")
            if "btn_delete" in on:
                return find(wd, "btn_delete") if title == p["title"] else ToolCall("back", {})
            if "btn_new" in on:
                hit = next((r for r, (lab, _) in wd.items() if r.startswith("note_") and lab == p["title"]), None)
                return _tap(wd, hit) if hit else "done"
            return goto("app_notes")
        if cat == "mr":
            code = None
            for _, o in history:
                m = re.search(r"the code is (\d+)", o)
                if m:
                    code = m.group(1)
            m = re.search(r"the code is (\d+)", observation)
            code = m.group(1) if m else code
            if code is None:
                if "msg_0" in on:
                    rid = next((r for r, (lab, _) in wd.items() if lab == p["sender"]), None)
                    return _tap(wd, rid) if rid else ToolCall("back", {})
                return goto("app_messages") if "app_notes" in on else ToolCall("back", {})
            if title in ("New note", "新建笔记"):
                typed = next((t[7:] for t in texts if t.startswith("typed: ")), "")
                if typed == code:
                    return find(wd, "btn_save")
                if typed:
                    return ToolCall("back", {})
                return ToolCall("type_text", {"text": code})
            if "btn_new" in on:
                if any(lab == code for r, (lab, _) in wd.items() if r.startswith("note_")):
                    return "done"
                return find(wd, "btn_new")
            return goto("app_notes") if "app_notes" in on else ToolCall("back", {})
        if cat == "gsa":
            if "btn_pause" in on:
                t = next((int(x[-2:]) for x in texts if re.fullmatch(r"time 00:\d\d", x)), None)
                if t is None:
                    return ToolCall("wait", {})
                if t == 0:
                    return find(wd, "btn_start")
                before = [int(x[-2:]) for x in parse_screen(history[-2][1])["texts"]
                          if re.match(r"time 00:\d\d$", x)] if len(history) >= 2 else []
                if t == p["at"]:
                    return "done" if before == [t] else find(wd, "btn_pause")
                return "done" if t > p["at"] else ToolCall("wait", {})
            return goto("app_clock")
        if cat == "guim":
            if "canvas" in on:
                box = next((t for t in texts if t.startswith("target box")), None)
                if box is None:
                    return ToolCall("wait", {})
                x0, y0, x1, y1 = map(int, re.findall(r"-?\d+", box))
                last = history[-1][0] if history else None
                if isinstance(last, ToolCall) and last.name == "tap" and \
                        x0 <= last.arguments["x"] < x1 and y0 <= last.arguments["y"] < y1:
                    return "done"
                return ToolCall("tap", {"x": (x0 + x1) // 2, "y": (y0 + y1) // 2})
            return goto("app_draw")
        if cat in ("hgb", "bc"):
            if "btn_next" in on:
                seen = [x for _, o in history for x in parse_screen(o)["texts"]] + texts
                rows = [r.split(" | ") for r in seen if r.count(" | ") == 2]
                last = history[-1] if history else None
                at_end = last is not None and isinstance(last[0], ToolCall) and len(history) >= 2 and \
                    parse_screen(history[-2][1])["title"] == title
                if cat == "hgb":
                    for name, _, price in rows:
                        if name == p["item"]:
                            return price
                    return "not found" if at_end else find(wd, "btn_next")
                if at_end:
                    match = [(int(pr[1:]), n) for n, c, pr in rows if c == p["colour"] and re.fullmatch(r"\$\d+", pr)]
                    return min(match)[1] if match else "none"
                return find(wd, "btn_next")
            return goto("app_shop")
        if cat == "nr":
            if "tgl_bluetooth" in on:
                if wd["tgl_bluetooth"][0].endswith(("off", "关")):
                    return "done"
                return find(wd, "tgl_bluetooth")
            return goto("app_settings")
        raise ValueError(f"unknown category {cat!r}")  # pragma: no cover

    return solve


@dataclass
class ReplayPolicy:
    """Replays the tap coordinates of a recorded trajectory (an agent that memorised one layout)."""

    actions: list[Any]

    def __post_init__(self) -> None:
        self._i = 0

    def reset(self) -> None:
        self._i = 0

    def act(self, observation: str, history: list) -> Any:
        a = self.actions[self._i] if self._i < len(self.actions) else "done"
        self._i += 1
        return a


def render(env: PhoneEnv):
    """The current screen as a Pillow image (dark mode inverts the palette)."""
    from PIL import Image, ImageDraw

    w, h = (W_PAD, H_PAD) if env.variant == "pad" else (W_PHONE, H_PHONE)
    bg, fg, box = ((20, 20, 24), (235, 235, 235), (70, 70, 90)) if env.variant == "dark" else \
        ((250, 250, 250), (20, 20, 20), (200, 210, 230))
    img = Image.new("RGB", (w, h), bg)
    d = ImageDraw.Draw(img)
    title, _, texts = env.screen()
    d.text((20, 30), env._tr(title), fill=fg)
    for wg in env.layout():
        d.rectangle([wg.x, wg.y, wg.x + wg.w, wg.y + wg.h], outline=box, width=2)
        d.text((wg.x + 8, wg.y + 8), wg.label.encode("ascii", "replace").decode(), fill=fg)
    for i, t in enumerate(texts):
        d.text((20, 70 + 14 * i), t, fill=fg)
    if env.s["screen"] == "draw":
        x0, y0, x1, y1 = env._target_box()
        d.rectangle([x0, y0, x1, y1], outline=(220, 40, 40), width=2)
    return img
