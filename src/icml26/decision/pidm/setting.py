"""The simulated world of the PIDM reproduction: continuous four-room navigation (gymnasium API).

Stand-in for the paper's 2-D toy navigation tasks (arXiv:2601.21718): the agent
(a point in [0, 1]^2) starts in the bottom-left room and must reach a goal in the
top-right room. Walls cross at the centre; each wall half has a doorway, so the goal can
be reached through the bottom-right room or through the top-left room, two routes of
the same length from states on the diagonal. The scripted expert picks one route per
episode at random (more often the one its start favours) and steers through the two
doorways of that route with Gaussian action noise, which makes the expert's action
distribution bimodal in the start room: the ambiguity PIDM's future state resolves.

Two tasks share the layout: ``"fourroom"`` starts in the bottom-left room (the two-route,
bimodal task), ``"threeroom"`` starts in any of the three rooms other than the goal's, so
a few demonstrations cover the state space poorly and PIDM is below its ceiling there.

Actions are continuous 2-D velocities in [-1, 1]^2 scaled by ``step_size``; a move that
would enter a wall stops at the last free point (checked on sub-steps).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import gymnasium as gym
import numpy as np

from icml26.core.validate import as_array, as_rng, check_int, check_positive

WALL_HALF = 0.01  # walls are 0.02 thick, centred on x = 0.5 and y = 0.5
DOORS = ((0.17, 0.33), (0.67, 0.83))  # door intervals along each wall
GOAL = np.array([0.75, 0.75], dtype=np.float32)
ROUTES = {
    0: np.array([[0.42, 0.25], [0.58, 0.25], [0.75, 0.42], [0.75, 0.58]], dtype=np.float32),  # via bottom-right
    1: np.array([[0.25, 0.42], [0.25, 0.58], [0.42, 0.75], [0.58, 0.75]], dtype=np.float32),  # via top-left
}


#: start boxes ((x_lo, x_hi), (y_lo, y_hi)) of the rooms other than the goal's
ROOMS = {"bl": ((0.08, 0.42), (0.08, 0.42)), "br": ((0.58, 0.92), (0.08, 0.42)), "tl": ((0.08, 0.42), (0.58, 0.92))}
#: rooms a task starts in
TASKS = {"fourroom": ("bl",), "threeroom": ("bl", "br", "tl")}


def _positions(name: str, p) -> np.ndarray:
    p = as_array(name, p, ndim=2)
    if p.shape[1] != 2:
        raise ValueError(f"{name} must have shape (n, 2), got {p.shape}")
    return p


def in_wall(p: np.ndarray) -> np.ndarray:
    """p: (n, 2) positions -> (n,) bool, True inside a wall (or outside the arena)."""
    p = _positions("p", p)
    x, y = p[:, 0], p[:, 1]
    out = (x < 0) | (x > 1) | (y < 0) | (y > 1)

    def in_door(u):
        return ((u > DOORS[0][0]) & (u < DOORS[0][1])) | ((u > DOORS[1][0]) & (u < DOORS[1][1]))

    vert = (np.abs(x - 0.5) < WALL_HALF) & ~in_door(y)
    horz = (np.abs(y - 0.5) < WALL_HALF) & ~in_door(x)
    return out | vert | horz


def step_positions(pos: np.ndarray, act: np.ndarray, step_size: float, n_sub: int = 4) -> np.ndarray:
    """Move each position by step_size * clip(act, -1, 1), stopping before any wall."""
    pos, act = _positions("pos", pos), _positions("act", act)
    if act.shape != pos.shape:
        raise ValueError(f"act must have the shape of pos {pos.shape}, got {act.shape}")
    step_size = check_positive("step_size", step_size)
    n_sub = check_int("n_sub", n_sub, minimum=1)
    act = np.clip(act, -1.0, 1.0) * step_size
    cur = pos.copy()
    blocked = np.zeros(pos.shape[0], dtype=bool)
    for i in range(1, n_sub + 1):
        cand = pos + act * (i / n_sub)
        bad = in_wall(cand)
        blocked |= bad
        ok = ~blocked
        cur[ok] = cand[ok]
    return cur.astype(np.float32)


def sample_starts(rng: np.random.Generator, n: int, task: str = "fourroom") -> np.ndarray:
    """n start positions (n, 2), uniform in a room chosen uniformly among the task's start rooms."""
    rng, n = as_rng("rng", rng), check_int("n", n, minimum=1)
    if task not in TASKS:
        raise ValueError(f"task must be one of {sorted(TASKS)}, got {task!r}")
    rooms = TASKS[task]
    if len(rooms) == 1:  # one room: the draw used before tasks existed
        (xl, xh), _ = ROOMS[rooms[0]]
        return rng.uniform(xl, xh, size=(n, 2)).astype(np.float32)
    pick = rng.integers(0, len(rooms), size=n)
    lo = np.array([[ROOMS[rooms[k]][0][0], ROOMS[rooms[k]][1][0]] for k in pick])
    hi = np.array([[ROOMS[rooms[k]][0][1], ROOMS[rooms[k]][1][1]] for k in pick])
    return rng.uniform(lo, hi).astype(np.float32)


def sample_free(rng: np.random.Generator, n: int) -> np.ndarray:
    """Uniform positions in free space (rejection sampling)."""
    rng, n = as_rng("rng", rng), check_int("n", n, minimum=1)
    out = np.empty((0, 2), dtype=np.float32)
    while out.shape[0] < n:
        p = rng.uniform(0.02, 0.98, size=(2 * n, 2)).astype(np.float32)
        out = np.concatenate([out, p[~in_wall(p)]])
    return out[:n]


class FourRoomsNav(gym.Env):
    """gymnasium environment: observation (x, y), action 2-D velocity in [-1, 1]^2."""

    metadata = {"render_modes": []}

    def __init__(self, step_size: float = 0.03, goal_radius: float = 0.05, max_steps: int = 120):
        step_size = check_positive("step_size", step_size)
        goal_radius = check_positive("goal_radius", goal_radius)
        max_steps = check_int("max_steps", max_steps, minimum=1)
        self.step_size, self.goal_radius, self.max_steps = step_size, goal_radius, max_steps
        self.observation_space = gym.spaces.Box(0.0, 1.0, shape=(2,), dtype=np.float32)
        self.action_space = gym.spaces.Box(-1.0, 1.0, shape=(2,), dtype=np.float32)
        self.pos = np.zeros(2, dtype=np.float32)
        self.t = 0

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        if options and "start" in options:
            self.pos = np.asarray(options["start"], dtype=np.float32).copy()
        else:
            self.pos = sample_starts(self.np_random, 1)[0]
        self.t = 0
        return self.pos.copy(), {}

    def step(self, action):
        self.pos = step_positions(self.pos[None], np.asarray(action, dtype=np.float32)[None], self.step_size)[0]
        self.t += 1
        reached = bool(np.linalg.norm(self.pos - GOAL) < self.goal_radius)
        return self.pos.copy(), float(reached), reached, self.t >= self.max_steps, {}


def expert_episode(env: FourRoomsNav, rng: np.random.Generator, start: np.ndarray, route_temp: float = 0.1,
                   noise_sd: float = 0.1) -> tuple[np.ndarray, np.ndarray, int]:
    """One scripted expert demonstration.

    From the bottom-left room, route 0 (bottom-right) is taken with probability
    sigmoid((x0 - y0) / route_temp) for the start (x0, y0): near the diagonal both routes are
    equally likely (bimodal expert). From the bottom-right (top-left) room the expert takes the
    rest of route 0 (route 1) through that room's door to the goal room.
    Returns states (T + 1, 2), actions (T, 2) and the route.
    """
    if not isinstance(env, FourRoomsNav):
        raise TypeError(f"env must be a FourRoomsNav, got {type(env).__name__}")
    rng = as_rng("rng", rng)
    start = as_array("start", start, ndim=1)
    if start.shape != (2,) or bool(in_wall(start[None])[0]):
        raise ValueError(f"start must be a free position (x, y), got {start}")
    route_temp = check_positive("route_temp", route_temp)
    noise_sd = check_positive("noise_sd", noise_sd, strict=False)
    obs, _ = env.reset(options={"start": start})
    first = 0
    if start[0] > 0.5:
        route, first = 0, 2
    elif start[1] > 0.5:
        route, first = 1, 2
    else:
        p0 = 1.0 / (1.0 + np.exp(-(float(start[0]) - float(start[1])) / route_temp))
        route = 0 if rng.uniform() < p0 else 1
    wps = list(ROUTES[route][first:]) + [GOAL]
    states, actions = [obs], []
    w = 0
    for _ in range(env.max_steps):
        while w < len(wps) - 1 and np.linalg.norm(wps[w] - obs) < 0.02:
            w += 1
        vec = wps[w] - obs
        dist = float(np.linalg.norm(vec))
        a = vec / max(dist, 1e-8) * min(1.0, dist / env.step_size)
        a = np.clip(a + rng.normal(0.0, noise_sd, 2), -1.0, 1.0).astype(np.float32)
        obs, _, term, trunc, _ = env.step(a)
        states.append(obs)
        actions.append(a)
        if term or trunc:
            break
    return np.asarray(states, dtype=np.float32), np.asarray(actions, dtype=np.float32), route


def rollout_success(policy_act, starts: np.ndarray, step_size: float = 0.03, goal_radius: float = 0.05,
                    max_steps: int = 120) -> float:
    """Closed-loop success rate of ``policy_act((m, 2) states) -> (m, 2) actions`` from each start (batched)."""
    if not callable(policy_act):
        raise TypeError(f"policy_act must be callable, got {type(policy_act).__name__}")
    pos = _positions("starts", starts).astype(np.float32).copy()
    step_size = check_positive("step_size", step_size)
    goal_radius = check_positive("goal_radius", goal_radius)
    max_steps = check_int("max_steps", max_steps, minimum=1)
    done = np.zeros(pos.shape[0], dtype=bool)
    for _ in range(max_steps):
        live = ~done
        if not live.any():
            break
        pos[live] = step_positions(pos[live], policy_act(pos[live]), step_size)
        done |= np.linalg.norm(pos - GOAL, axis=1) < goal_radius
    return float(done.mean())


def rollout_successes(policy_act, starts: np.ndarray, n_policies: int, step_size: float = 0.03,
                      goal_radius: float = 0.05, max_steps: int = 120) -> list[float]:
    """:func:`rollout_success` of ``n_policies`` policies at once, each from every start.

    ``policy_act(pos, live)``: pos (P, m, 2), live (P, m) bool -> (P, m, 2) actions; only the
    live entries are used (finished episodes stay put), so a policy may skip the others.
    Returns the success rate of each policy.
    """
    if not callable(policy_act):
        raise TypeError(f"policy_act must be callable, got {type(policy_act).__name__}")
    starts = _positions("starts", starts).astype(np.float32)
    n_policies = check_int("n_policies", n_policies, minimum=1)
    step_size = check_positive("step_size", step_size)
    goal_radius = check_positive("goal_radius", goal_radius)
    max_steps = check_int("max_steps", max_steps, minimum=1)
    pos = np.repeat(starts[None], n_policies, 0)
    done = np.zeros(pos.shape[:2], dtype=bool)
    for _ in range(max_steps):
        live = ~done
        if not live.any():
            break
        act = np.asarray(policy_act(pos, live), dtype=np.float32)
        if act.shape != pos.shape:
            raise ValueError(f"policy_act must return shape {pos.shape}, got {act.shape}")
        pos[live] = step_positions(pos[live], act[live], step_size)
        done |= np.linalg.norm(pos - GOAL, axis=2) < goal_radius
    return [float(v) for v in done.mean(1)]


# ---------------------------------------------------------------------------
# The authors' 2-D goal-sequence worlds (arXiv:2601.21718's toy environment), re-implemented
# ---------------------------------------------------------------------------
#
# The paper's four 2-D tasks are defined by an ASCII layout: 'W' wall cells, 'A' the agent's
# start, 'G' goal candidates. The layout is stretched over a room of (800, 800) pixels; the
# agent and the goals are 20 x 20 pixel boxes centred on their (rounded) position. A step
# zeroes every action component below the dead zone (0.1) in magnitude, adds Gaussian
# transition noise (sd 0.2 in the authors' demonstrations), moves the agent by 20 x that
# velocity, rounds the position to 3 decimals and clips it to the room, then pushes the agent
# out of any wall it overlaps: along the axis of the thinner overlap, back against its
# displacement of this step, by the overlap plus one pixel, repeated until it is free (after
# 100 pushes it returns to where the step started). The goals must be reached in a fixed order;
# only the current one counts, and touching it (overlap of the two boxes) marks it reached.
# The episode succeeds when every goal is reached, and stops after ``max_steps`` steps.
# This is our numpy re-implementation of those rules (checked in the tests against the
# authors' recorded demonstrations, whose per-step noise is a known seeded stream).

@dataclass(frozen=True)
class GoalLayout:
    """A parsed layout: wall boxes (K, 4) as (left, top, width, height) in pixels, the start (2,),
    the goals (G, 2) in the order they must be visited, the room size, box sizes and dynamics."""

    walls: np.ndarray
    start: np.ndarray
    goals: np.ndarray
    room: tuple[int, int] = (800, 800)
    box: int = 20
    velocity_scale: float = 20.0
    deadzone: float = 0.1
    noise_sd: float = 0.2
    max_steps: int = 200

    @property
    def n_goals(self) -> int:
        return int(self.goals.shape[0])


def _wall_cells(rows: list[str]) -> list[tuple[int, int, int, int]]:
    """Wall segments (col, row, n_cols, n_rows) in layout cells.

    Every horizontal run of 'W' becomes a segment, except a single cell that continues a
    vertical run (it belongs to that vertical wall), unless the run reaches the row's end. Every
    vertical run longer than one cell becomes a segment, and so does a run of any length that
    reaches the bottom row.
    """
    n_rows, n_cols = len(rows), len(rows[0])
    is_w = [[c == "W" for c in r] for r in rows]

    def vertical_neighbour(c: int, r: int) -> bool:
        return (r > 0 and is_w[r - 1][c]) or (r < n_rows - 1 and is_w[r + 1][c])

    segs = []
    for r in range(n_rows):
        c = 0
        while c < n_cols:
            if not is_w[r][c]:
                c += 1
                continue
            c0 = c
            while c < n_cols and is_w[r][c]:
                c += 1
            if c == n_cols or c - c0 > 1 or not vertical_neighbour(c0, r):
                segs.append((c0, r, c - c0, 1))
    for c in range(n_cols):
        r = 0
        while r < n_rows:
            if not is_w[r][c]:
                r += 1
                continue
            r0 = r
            while r < n_rows and is_w[r][c]:
                r += 1
            if r == n_rows or r - r0 > 1:
                segs.append((c, r0, 1, r - r0))
    return segs


def parse_layout(layout: str, goal_order, room=(800, 800), box: int = 20, velocity_scale: float = 20.0,
                 deadzone: float = 0.1, noise_sd: float = 0.2, max_steps: int = 200) -> GoalLayout:
    """Build a :class:`GoalLayout` from an ASCII layout ('W', 'A', 'G', spaces).

    Cell (col, row) maps to pixel (col * room_w / n_cols, row * room_h / n_rows); walls are
    rounded to whole pixels, the start and the goals rounded up. ``goal_order[i]`` is the index
    (in reading order) of the i-th goal to visit.
    """
    if not isinstance(layout, str):
        raise TypeError(f"layout must be a string, got {type(layout).__name__}")
    rows = [r for r in layout.split("\n") if r.strip()]
    if not rows or len({len(r) for r in rows}) != 1:
        raise ValueError("layout must be a non-empty block of rows of equal length")
    if set("".join(rows)) - set("WAG "):
        raise ValueError(f"layout may only contain 'W', 'A', 'G' and spaces, got {sorted(set(''.join(rows)))}")
    n_rows, n_cols = len(rows), len(rows[0])
    room = (check_int("room[0]", room[0], minimum=1), check_int("room[1]", room[1], minimum=1))
    sx, sy = room[0] / n_cols, room[1] / n_rows
    walls = np.array([[np.round(c * sx), np.round(r * sy), np.round(w * sx), np.round(h * sy)]
                      for c, r, w, h in _wall_cells(rows)], dtype=np.int64)
    cells = {ch: [(c, r) for r in range(n_rows) for c in range(n_cols) if rows[r][c] == ch] for ch in "AG"}
    if len(cells["A"]) != 1:
        raise ValueError(f"layout must have exactly one start 'A', got {len(cells['A'])}")
    cand = np.ceil(np.array(cells["G"], dtype=np.float64) * [sx, sy]) if cells["G"] else np.zeros((0, 2))
    order = [check_int("goal_order[i]", int(i), minimum=0, maximum=max(len(cand) - 1, 0)) for i in goal_order]
    if not order or len(set(order)) != len(order):
        raise ValueError(f"goal_order must list distinct goal indices, got {goal_order}")
    start = np.ceil(np.array(cells["A"][0], dtype=np.float64) * [sx, sy])
    return GoalLayout(walls=walls, start=start, goals=cand[order], room=room, box=check_int("box", box, minimum=1),
                      velocity_scale=check_positive("velocity_scale", velocity_scale),
                      deadzone=check_positive("deadzone", deadzone, strict=False),
                      noise_sd=check_positive("noise_sd", noise_sd, strict=False),
                      max_steps=check_int("max_steps", max_steps, minimum=1))


def _boxes_overlap(centres: np.ndarray, box: int, walls: np.ndarray):
    """Overlap widths and heights (n, K) of the agents' boxes (centred on the rounded positions) with the walls."""
    left = np.rint(centres) - box // 2  # (n, 2)
    lo = np.maximum(left[:, None, :], walls[None, :, :2])
    hi = np.minimum(left[:, None, :] + box, walls[None, :, :2] + walls[None, :, 2:])
    return hi[..., 0] - lo[..., 0], hi[..., 1] - lo[..., 1]


def goal_step(world: GoalLayout, pos, action, noise) -> np.ndarray:
    """One move of n agents: pos (n, 2) pixels, action (n, 2), noise (n, 2) (the transition noise,
    already scaled to action units) -> new positions (n, 2), float64."""
    if not isinstance(world, GoalLayout):
        raise TypeError(f"world must be a GoalLayout, got {type(world).__name__}")
    pos = np.asarray(_positions("pos", pos), dtype=np.float64)
    action = np.asarray(_positions("action", action), dtype=np.float64)
    noise = np.asarray(_positions("noise", noise), dtype=np.float64)
    if action.shape != pos.shape or noise.shape != pos.shape:
        raise ValueError(f"action and noise must have the shape of pos {pos.shape}, got {action.shape}, {noise.shape}")
    vel = np.where(np.abs(action) < world.deadzone, 0.0, action) + noise
    new = np.clip(np.round(pos + world.velocity_scale * vel, 3), 0.0, np.array(world.room, dtype=np.float64) - 1.0)
    pushes = np.zeros(len(pos), dtype=np.int64)
    active = np.ones(len(pos), dtype=bool)
    while active.any():
        idx = np.flatnonzero(active)
        ow, oh = _boxes_overlap(new[idx], world.box, world.walls)
        hit = (ow > 0) & (oh > 0)
        free = ~hit.any(1)
        active[idx[free]] = False
        idx, ow, oh, hit = idx[~free], ow[~free], oh[~free], hit[~free]
        if idx.size == 0:
            break
        disp = new[idx] - pos[idx]
        along_y = ow > oh  # a wide, flat overlap: push vertically; otherwise horizontally
        back = np.stack([np.where(hit & ~along_y, -disp[:, :1], 0.0).sum(1),
                         np.where(hit & along_y, -disp[:, 1:], 0.0).sum(1)], 1)
        dist = np.stack([np.where(hit & ~along_y, ow, 0).max(1), np.where(hit & along_y, oh, 0).max(1)], 1)
        push = (dist + 1.0) * np.sign(back)
        new[idx] += push
        pushes[idx] += 1
        # a zero push leaves the agent where it is, so it would be pushed (by zero) until the 100th try:
        # skip straight to that outcome
        pushes[idx[~push.any(1)]] = 100
        stuck = idx[pushes[idx] >= 100]
        new[stuck] = pos[stuck]
        active[stuck] = False
    return new


def _world_pos_progress(world, pos, progress) -> tuple[np.ndarray, np.ndarray]:
    if not isinstance(world, GoalLayout):
        raise TypeError(f"world must be a GoalLayout, got {type(world).__name__}")
    pos = np.asarray(_positions("pos", pos), dtype=np.float64)
    progress = as_array("progress", progress, ndim=1)
    if progress.shape[0] != pos.shape[0] or np.any(progress != np.round(progress)):
        raise ValueError(f"progress must hold one integer per position ({pos.shape[0]}), got {progress}")
    if np.any(progress < 0) or np.any(progress > world.n_goals):
        raise ValueError(f"progress must lie in [0, {world.n_goals}], got {progress}")
    return pos, progress.astype(np.int64)


def goal_touch(world: GoalLayout, pos, progress) -> np.ndarray:
    """True where an agent's box overlaps its current goal (progress = goals reached so far, (n,) ints)."""
    pos, progress = _world_pos_progress(world, pos, progress)
    g = world.goals[np.minimum(progress, world.n_goals - 1)]
    d = np.abs(np.rint(pos) - np.rint(g))
    return (progress < world.n_goals) & (d[:, 0] < world.box) & (d[:, 1] < world.box)


def goal_features(world: GoalLayout, pos, progress) -> np.ndarray:
    """Policy input (n, 2 + G): position / room size and the goals' reached flags (as in the authors' state,
    whose goal coordinates are constants of the layout)."""
    pos, progress = _world_pos_progress(world, pos, progress)
    flags = (progress[:, None] > np.arange(world.n_goals)[None]).astype(np.float32)
    return np.concatenate([(pos / np.array(world.room)).astype(np.float32), flags], 1)


def goal_replay(world: GoalLayout, actions, noise, start=None) -> tuple[np.ndarray, np.ndarray]:
    """Positions (T + 1, 2) and progress (T + 1,) of one episode driven by actions (T, 2) and noise (T, 2)."""
    if not isinstance(world, GoalLayout):
        raise TypeError(f"world must be a GoalLayout, got {type(world).__name__}")
    if start is not None:
        start = as_array("start", start, ndim=1)
        if start.shape != (2,):
            raise ValueError(f"start must be a position (x, y), got shape {start.shape}")
    actions = _positions("actions", actions)
    noise = _positions("noise", noise)
    if noise.shape != actions.shape:
        raise ValueError(f"noise must have the shape of actions {actions.shape}, got {noise.shape}")
    pos = np.array(world.start if start is None else start, dtype=np.float64)[None]
    prog = np.zeros(1, dtype=np.int64)
    P, G = [pos[0].copy()], [0]
    for a, e in zip(actions, noise):
        pos = goal_step(world, pos, a[None], e[None])
        prog = prog + goal_touch(world, pos, prog)
        P.append(pos[0].copy())
        G.append(int(prog[0]))
    return np.asarray(P), np.asarray(G)


def goal_rollouts(world: GoalLayout, policy_act, n_policies: int, n_episodes: int,
                  rng: np.random.Generator) -> np.ndarray:
    """Success rates (n_policies,) of closed-loop episodes from the layout's start with transition noise.

    ``policy_act(features, live)``: features (P, m, 2 + G), live (P, m) bool -> actions (P, m, 2); only
    live entries are used. Success = every goal reached within ``world.max_steps`` steps.
    """
    if not isinstance(world, GoalLayout):
        raise TypeError(f"world must be a GoalLayout, got {type(world).__name__}")
    if not callable(policy_act):
        raise TypeError(f"policy_act must be callable, got {type(policy_act).__name__}")
    n_policies = check_int("n_policies", n_policies, minimum=1)
    n_episodes = check_int("n_episodes", n_episodes, minimum=1)
    rng = as_rng("rng", rng)
    P, m = n_policies, n_episodes
    pos = np.tile(world.start, (P * m, 1)).astype(np.float64)
    prog = np.zeros(P * m, dtype=np.int64)
    for _ in range(world.max_steps):
        live = prog < world.n_goals
        if not live.any():
            break
        feats = goal_features(world, pos, prog).reshape(P, m, -1)
        act = np.asarray(policy_act(feats, live.reshape(P, m)), dtype=np.float64)
        if act.shape != (P, m, 2):
            raise ValueError(f"policy_act must return shape {(P, m, 2)}, got {act.shape}")
        act = act.reshape(P * m, 2)
        noise = rng.normal(0.0, world.noise_sd, size=(P * m, 2))
        idx = np.flatnonzero(live)
        pos[idx] = goal_step(world, pos[idx], act[idx], noise[idx])
        prog[idx] += goal_touch(world, pos[idx], prog[idx])
    return (prog == world.n_goals).reshape(P, m).mean(1)


#: the authors' demonstration sets shipped as package data (``data/<name>.json.gz``, CDLA-Permissive-2.0)
AUTHOR_DEMOS = ("four_room_astar", "four_room_human")


@functools.lru_cache(maxsize=None)
def _author_raw(name: str) -> dict:
    """The decoded package-data file ``data/<name>.json.gz`` of one authors' demonstration set (read once)."""
    import gzip
    import json
    from importlib.resources import files

    if name not in AUTHOR_DEMOS:
        raise ValueError(f"name must be one of {AUTHOR_DEMOS}, got {name!r}")
    with gzip.open(files("icml26.decision.pidm").joinpath("data", f"{name}.json.gz").open("rb"), "rt") as f:
        return json.load(f)


def load_author_demos(name: str) -> tuple[GoalLayout, list[dict]]:
    """One of the authors' demonstration sets (``AUTHOR_DEMOS``): its world and its 50 episodes.

    Each episode is a dict of ``positions`` (T + 1, 2) pixels, ``progress`` (T + 1,) goals reached
    and ``actions`` (T, 2) (the recorded joystick actions, before the dead zone and the noise).
    """
    raw = _author_raw(name)
    world = parse_layout(raw["layout"], raw["goal_order"], room=tuple(raw["room"]), box=raw["box"],
                         velocity_scale=raw["velocity_scale"], deadzone=raw["deadzone"], noise_sd=raw["noise_sd"],
                         max_steps=raw["max_steps"])
    episodes = [{"positions": np.asarray(t["positions"], dtype=np.float64),
                 "progress": np.asarray(t["progress"], dtype=np.int64),
                 "actions": np.asarray(t["actions"], dtype=np.float32)} for t in raw["trajectories"]]
    return world, episodes


def author_demo_noise(name: str) -> list[np.ndarray]:
    """The transition noise of each recorded episode of ``name``: the authors' recorder draws it from one
    generator seeded with the config's seed (42), continued across the 50 episodes in order, two normal
    draws of sd ``noise_sd`` per step. Recomputed here, for the replay test."""
    raw = _author_raw(name)
    lengths = [len(t["actions"]) for t in raw["trajectories"]]
    z = np.random.default_rng(int(raw["noise_seed"])).normal(0.0, float(raw["noise_sd"]), size=(sum(lengths), 2))
    return np.split(z, np.cumsum(lengths)[:-1])
