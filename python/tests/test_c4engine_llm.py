"""c4engine.llm: a language model of the caller's (a Python function)
played against the project's players and judged move by move, and the
module's own chat-completions client driven through the arena's scripted
stand-in server (`connect4-arena llm stand-in`) in every failure it
scripts. No test here waits on a clock: the opponents are random and
greedy, and the stand-in answers at once."""

import json
import subprocess

import pytest

from binaries import cargo_binary

MOVES_LINE = "Moves so far (columns from "


def moves_of(messages):
    """The columns played so far (from 0), from the last position the
    conversation shows."""
    position = next(m["content"] for m in reversed(messages) if MOVES_LINE in m["content"])
    line = next(l for l in position.splitlines() if l.startswith(MOVES_LINE))
    first = int(line[len(MOVES_LINE)])
    return [int(c) - first for c in line.split(":", 1)[1].split() if c != "none"]


def perfect(c4):
    """A model that answers the solver's move."""
    calls = []

    def model(messages):
        calls.append(messages)
        assert messages[0]["role"] == "system" and messages[-1]["role"] == "user"
        return f"I play [{c4.best_move(c4.Position.from_columns(moves_of(messages)))}]"
    model.calls = calls
    return model


def test_a_python_model_plays_is_judged_and_resumes_from_its_log(c4, tmp_path):
    import c4engine.llm as llm
    log = tmp_path / "llm.jsonl"
    model = perfect(c4)
    summary = llm.play(model, name="oracle", against="random,greedy", games=2, log=log)
    assert summary["games"] == 4 and summary["left"] == 0 and summary["why_left"] is None
    assert summary["accuracy"] == 1.0 and summary["judged_moves"] == summary["kept"] > 0
    assert summary["illegal_answers"] == 0 and summary["answers"] == len(model.calls)
    assert summary["against"]["random"]["wins"] == 2
    assert summary["against"]["greedy"]["wins"] == 2
    lines = [json.loads(l) for l in log.read_text().splitlines()]
    assert {l["first"] for l in lines} | {l["second"] for l in lines} >= {"llm:oracle"}
    assert all(l["llm"]["model"] == "oracle" and l["llm"]["verdicts"] for l in lines)
    assert lines[0]["llm"]["turns"][0]["messages"][0]["role"] == "user"
    # Again with the same log: nothing is asked again.
    calls = len(model.calls)
    again = llm.play(model, name="oracle", against="random,greedy", games=2, log=log)
    assert len(model.calls) == calls and again["games"] == 4
    assert llm.report(log)["accuracy"] == 1.0
    # Other settings are another run: the log is refused, and kept.
    with pytest.raises(ValueError, match="holds games of another run"):
        llm.play(model, name="oracle", against="random", games=2, log=log)
    assert len(log.read_text().splitlines()) == 4


def test_illegal_answers_are_asked_again_then_forfeited(c4, tmp_path):
    import c4engine.llm as llm
    answers = iter(["column 99 [99]", "[3]"] * 100)

    def second_try(messages):
        return {"content": next(answers), "prompt_tokens": 10, "completion_tokens": 2}

    summary = llm.play(second_try, against=["random"], games=2, log=tmp_path / "a.jsonl")
    assert summary["games"] == 2 and summary["tokens"] == 12 * summary["answers"]
    assert summary["illegal_answers"] * 2 == summary["answers"]

    def words(messages):
        return "the centre looks good"

    summary = llm.play(words, against=["random"], games=2, retries=1, log=tmp_path / "b.jsonl")
    assert summary["against"]["random"]["forfeits"] == 2
    assert summary["illegal_rate"] == 1.0 and summary["answers"] == 4
    line = json.loads((tmp_path / "b.jsonl").read_text().splitlines()[0])
    assert line["reason"] == "protocol"
    assert "no move in the answer" in line["detail"]


def test_the_model_s_exception_ends_the_run_and_is_raised(c4, tmp_path):
    import c4engine.llm as llm
    seen = []

    def failing(messages):
        # The first game is played out; the second game's first turn fails.
        moves = moves_of(messages)
        if seen and len(moves) < seen[-1]:
            raise ConnectionError("the model's GPU is gone")
        seen.append(len(moves))
        return f"[{c4.best_move(c4.Position.from_columns(moves))}]"

    log = tmp_path / "f.jsonl"
    with pytest.raises(ConnectionError, match="GPU is gone"):
        llm.play(failing, against=["greedy"], games=4, log=log)
    lines = [json.loads(l) for l in log.read_text().splitlines()]
    assert [l["game"] for l in lines] == [1] and lines[0]["llm"]["model"] == "failing"

    with pytest.raises(TypeError, match="it must answer a str .* or a dict with 'content'"):
        llm.play(lambda m: 3, name="int", against=["random"], games=1, log=tmp_path / "g.jsonl")
    with pytest.raises(TypeError, match="'prompt_tokens' must be a whole number"):
        llm.play(lambda m: {"content": "[3]", "prompt_tokens": "many"}, name="tokens",
                 against=["random"], games=1, log=tmp_path / "h.jsonl")


def test_bad_arguments_say_which_and_why(c4, tmp_path):
    import c4engine.llm as llm
    model = perfect(c4)
    log = tmp_path / "x.jsonl"
    for kwargs, message in [
        ({"against": ["oracle"]}, "against \"oracle\": unknown agent 'oracle'"),
        ({"prompt": "picture"}, "prompt \"picture\": expected 'board' or 'moves'"),
        ({"columns_from": 2}, "columns_from 2: expected 0 or 1"),
        ({"games": 0}, "games 0: expected a whole number, 1 or more"),
        ({"concurrency": -1}, "concurrency -1: expected a whole number, 1 or more"),
        ({"rules": "7x"}, "rules \"7x\""),
    ]:
        with pytest.raises(ValueError, match=message):
            llm.play(model, name="m", log=log, **kwargs)
    with pytest.raises(TypeError, match="model must be a function"):
        llm.play("gpt", log=log)
    assert not log.exists()
    with pytest.raises(ValueError, match="base_url 'localhost:8000'"):
        llm.chat_completions("localhost:8000", "m")


@pytest.fixture
def stand_in():
    """The arena's stand-in server on a free port of loopback, with the key
    'sesame': its base URL."""
    arena = cargo_binary("connect4-arena", "CONNECT4_ARENA", "cargo build --release")
    server = subprocess.Popen([arena, "llm", "stand-in", "--listen", "127.0.0.1:0",
                               "--key", "sesame"], stdout=subprocess.PIPE, text=True)
    try:
        yield server.stdout.readline().strip()
    finally:
        server.kill()
        server.wait()


def test_the_client_plays_the_stand_in_through_its_failures(c4, stand_in, tmp_path, monkeypatch):
    import c4engine.llm as llm
    monkeypatch.setenv("STAND_IN_KEY", "sesame")

    def client(model, **kwargs):
        return llm.chat_completions(stand_in, model, api_key_env="STAND_IN_KEY", backoff=0,
                                    timeout=30, **kwargs)

    for model in ["perfect", "rate-limited", "garbled"]:
        summary = llm.play(client(model), against=["random"], games=2,
                           log=tmp_path / f"{model}.jsonl")
        assert summary["model"] == model and summary["accuracy"] == 1.0, summary
        assert summary["tokens"] > 0
    # Every other request of these failed and was tried again.
    for model in ["rate-limited", "garbled"]:
        summary = llm.report(tmp_path / f"{model}.jsonl")
        assert summary["requests"] > summary["answers"], summary
    with pytest.raises(llm.ChatError, match="no answer after 3 tries; the last: HTTP 503"):
        llm.play(client("down", retries=2), against=["random"], games=2,
                 log=tmp_path / "down.jsonl")
    with pytest.raises(llm.ChatError, match="refused the request: HTTP 404"):
        client("oracle")([{"role": "user", "content": "[3]"}])
    monkeypatch.setenv("STAND_IN_KEY", "not-the-key-42")
    with pytest.raises(llm.ChatError, match="HTTP 401") as refused:
        client("perfect")([{"role": "user", "content": "[3]"}])
    assert "not-the-key-42" not in str(refused.value)


def test_the_client_follows_no_redirect_so_the_key_stays_with_its_server(c4, monkeypatch):
    import http.server
    import threading

    import c4engine.llm as llm
    seen = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            seen.append((self.path, self.headers.get("Authorization")))
            self.send_response(302 if self.path.startswith("/v1/") else 200)
            self.send_header("Location", "/elsewhere/chat/completions")
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_GET = do_POST

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        monkeypatch.setenv("REDIRECTED_KEY", "key-123")
        model = llm.chat_completions(f"http://127.0.0.1:{server.server_port}/v1", "m",
                                     api_key_env="REDIRECTED_KEY", backoff=0)
        with pytest.raises(llm.ChatError, match="HTTP 302") as refused:
            model([{"role": "user", "content": "[3]"}])
        assert "key-123" not in str(refused.value)
        assert seen == [("/v1/chat/completions", "Bearer key-123")]
    finally:
        server.shutdown()
