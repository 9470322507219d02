"""The agents substrate: env protocol and replay, policies with deficits, the OpenAI-compatible
client against a loopback server started here, and the evaluation helpers."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from icml26.agents.env import FileSearchEnv, ToolCall, parse_action, replay, run_episode
from icml26.agents.evaluate import (NoisyJudge, Subjects, all_variants_pass_rate, bootstrap_ci, rate_ci,
                                    success_rates)
from icml26.agents.policy import ChatClient, ChatError, ChatPolicy, ScriptedPolicy, file_search_solver


def test_oracle_solves_and_log_replays():
    env = FileSearchEnv(n_dirs=3, n_files=3)
    out = run_episode(env, ScriptedPolicy(file_search_solver), seed=4)
    assert out["reward"] == 1.0 and out["answered"] and out["steps"] <= 1 + 3 + 9 + 1
    assert replay(FileSearchEnv(n_dirs=3, n_files=3), out["log"])
    tampered = [dict(e) for e in out["log"]]
    tampered[1] = {**tampered[1], "observation": "something else"}
    assert not replay(FileSearchEnv(n_dirs=3, n_files=3), tampered)


def test_budgets_truncate_and_bad_actions_are_reported():
    env = FileSearchEnv(max_steps=2)
    env.reset(seed=0)
    obs, r, term, trunc, info = env.step(ToolCall("read_file", {"path": 3}))
    assert "must be str" in obs and info["error"] and not trunc
    obs, r, term, trunc, _ = env.step(ToolCall("nope"))
    assert "unknown tool" in obs and trunc
    with pytest.raises(RuntimeError, match="reset"):
        env.step("x")
    env2 = FileSearchEnv()
    env2.reset(seed=0)
    with pytest.raises(TypeError, match="action"):
        env2.step(3)


def test_deficits_lower_success():
    def rate(**kw):
        wins = 0
        for s in range(60):
            pol = ScriptedPolicy(file_search_solver, seed=s,
                                 random_action=lambda g: ToolCall("list_dir", {"path": "/"}), **kw)
            wins += run_episode(FileSearchEnv(max_steps=20), pol, seed=s)["reward"]
        return wins / 60

    assert rate() == 1.0
    assert rate(perception_noise=0.5) < 0.8
    assert rate(memory_limit=1) < 0.5
    assert rate(decision_error=0.5) < 0.8


def test_parse_action():
    assert parse_action('I will look. {"tool": "list_dir", "arguments": {"path": "/"}}') == ToolCall("list_dir", {"path": "/"})
    assert parse_action("ANSWER: maple") == "maple"
    assert parse_action("{not json} ANSWER: x") == "x"


# ----------------------------------------------------------------------------- loopback chat server
class _Handler(BaseHTTPRequestHandler):
    mode = "ok"
    calls = 0

    def log_message(self, *a):  # keep test output clean
        pass

    def do_POST(self):  # noqa: N802
        type(self).calls += 1
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        mode = type(self).mode
        if mode == "flaky" and type(self).calls == 1:
            self.send_response(503)
            self.end_headers()
            return
        if mode == "slow":
            time.sleep(2.0)
        if mode == "malformed":
            payload = b'{"id": "x", "object": "chat.completion", "choices": []}'
        elif mode == "garbage":
            payload = b"<html>not json</html>"
        else:
            text = body["messages"][-1]["content"]
            reply = '{"tool": "list_dir", "arguments": {"path": "/"}}' if "Find" in text else "ANSWER: ok"
            payload = json.dumps({"id": "c1", "object": "chat.completion", "created": 0, "model": body["model"],
                                  "choices": [{"index": 0, "finish_reason": "stop",
                                               "message": {"role": "assistant", "content": reply}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


@pytest.fixture()
def server():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    th = threading.Thread(target=srv.serve_forever, daemon=True)
    th.start()
    _Handler.calls = 0
    yield f"http://127.0.0.1:{srv.server_address[1]}/v1"
    srv.shutdown()
    srv.server_close()


def test_chat_policy_against_loopback_server(server):
    _Handler.mode = "ok"
    pol = ChatPolicy(ChatClient(server, "tiny", max_retries=0))
    env = FileSearchEnv()
    obs, _ = env.reset(seed=0)
    assert pol.act(obs, []) == ToolCall("list_dir", {"path": "/"})


def test_chat_client_retries_a_503(server):
    _Handler.mode = "flaky"
    assert ChatClient(server, "tiny", max_retries=2).complete([{"role": "user", "content": "hi"}]) == "ANSWER: ok"
    assert _Handler.calls == 2


def test_chat_client_timeout_and_malformed(server):
    _Handler.mode = "slow"
    with pytest.raises(TimeoutError):
        ChatClient(server, "tiny", timeout_s=0.3, max_retries=0).complete([{"role": "user", "content": "hi"}])
    for mode in ("malformed", "garbage"):
        _Handler.mode = mode
        with pytest.raises(ChatError):
            ChatClient(server, "tiny", max_retries=0).complete([{"role": "user", "content": "hi"}])


def test_chat_client_unreachable_and_bad_config():
    with pytest.raises(ConnectionError):
        ChatClient("http://127.0.0.1:9/v1", "tiny", max_retries=0, timeout_s=2).complete([{"role": "user", "content": "x"}])
    with pytest.raises(ValueError, match="base_url"):
        ChatClient("localhost:8000", "tiny")
    with pytest.raises(ValueError, match="model"):
        ChatClient("http://localhost:8000/v1", "")


# ----------------------------------------------------------------------------- evaluation
def test_irt_subjects_and_judge():
    subj = Subjects.draw(200, 2, seed=0)
    a = np.array([[1.0, 0.0], [0.0, 1.0]])
    out = subj.simulate(a, np.array([0.0, 2.0]), seed=1)
    assert out[:, 0].mean() > out[:, 1].mean() + 0.15
    j = NoisyJudge(0.2)
    truth = np.random.default_rng(0).random(20000) < 0.3
    obs = j.judge(truth, seed=2).mean()
    assert j.corrected_rate(obs) == pytest.approx(0.3, abs=0.02)
    with pytest.raises(ValueError, match="error_rate"):
        NoisyJudge(0.7)


def test_rates_and_intervals():
    r, lo, hi = rate_ci(14, 20)
    assert r == 0.7 and lo == pytest.approx(0.481, abs=0.005) and hi == pytest.approx(0.855, abs=0.005)
    _, elo, ehi = rate_ci(14, 20, method="exact")
    assert elo < lo and ehi > hi
    rates = success_rates([1, 0, 1, 1], ["a", "a", "b", "b"])
    assert rates["a"][0] == 0.5 and rates["b"][3] == 2
    m, blo, bhi = bootstrap_ci([1.0, 2.0, 3.0], [0.0, 0.0, 0.0])
    assert m == 2.0 and blo <= 2.0 <= bhi
    assert all_variants_pass_rate({"t1": [True, True], "t2": [True, False]}) == 0.5
    with pytest.raises((ValueError, TypeError), match="k"):
        rate_ci(5, 3)
