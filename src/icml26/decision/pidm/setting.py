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
