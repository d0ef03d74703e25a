"""Language models at Connect 4, judged move by move by the solver: what
`connect4-arena llm play` does, from Python (docs/llm.md).

    >>> import c4engine.llm
    >>> model = c4engine.llm.chat_completions("http://127.0.0.1:11434/v1", "llama3.2")
    >>> summary = c4engine.llm.play(model, against=["random"], games=2,
    ...                             log="llm.jsonl")            # doctest: +SKIP
    >>> summary["accuracy"]                                     # doctest: +SKIP

`play` takes any function of the conversation: it is called with a list
of dicts of 'role' and 'content' (the system message first) and answers
the model's text, or a dict with 'content' and, if it knows them,
'prompt_tokens' and 'completion_tokens'. So a model loaded in-process, or
another client (`openai.OpenAI().chat.completions.create`), plays as well
as `chat_completions`, this module's own client of the chat-completions
API (the standard library's HTTP, no other package).

The prompts, what counts as a move, the retries and forfeits, the judge
and the log are the command's (connect4-llm, in the native module): a log
written here is read by `connect4-arena report --html` and `llm report`,
and running `play` again with the same log goes on where it stopped.
Columns in the summary and the log's 'column' fields count from 0.
"""

import email.utils
import ipaddress
import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request

from . import _native

__all__ = ["ANCHORS", "ChatCompletions", "ChatError", "chat_completions", "play", "report"]

# The opponents by default: the league's anchors, weakest first.
ANCHORS = ("random", "greedy", "alphabeta:depth=4", "solver")

# The most of an answer's body read, and the longest wait between tries.
_MAX_BODY = 1 << 20
_MAX_WAIT = 60.0


class ChatError(RuntimeError):
    """The model's server gave no answer: it refused the request (a wrong
    key, an unknown model), or failed past the retries."""


def play(model, *, name=None, against=ANCHORS, games=10, log="llm-games.jsonl",
         prompt="board", legal_moves=True, columns_from=0, retries=2, concurrency=1,
         max_total_tokens=None, opponent_movetime_ms=1000, seed=1, rules="7x6x4"):
    """Plays `model` (a function of the conversation, see the module's
    doc) `games` games against each of `against` (agent specs, or one
    comma-separated string), first in one game and second in the next,
    and has the solver judge each of its moves; every game goes into the
    JSON-lines `log` as it ends.

    `name` names the model in the log (default: the function's `name`
    attribute, as `chat_completions` gives it, or its `__name__`).
    `prompt` is 'board' (a text grid and the moves) or 'moves' (the moves
    alone); `legal_moves=False` leaves their list out; `columns_from` is 0
    or 1, in prompts and answers. An answer that is no legal move is asked
    for again `retries` times, then the game is forfeited.
    `concurrency` games run at once, each calling `model` from a thread
    of its own (1 by default: a model in-process need not be
    thread-safe). No game starts once the log's games have spent
    `max_total_tokens` tokens.

    The summary, as `llm report --json` prints it ('accuracy',
    'blunders_by_phase', 'illegal_rate', 'against' with each opponent's
    results and Elo, ...), with 'left' (games not played) and 'why_left'.
    An exception `model` raises ends the run and is raised here; the log
    keeps every game that ended. Ctrl-C starts no more games, lets those
    under way end, and raises KeyboardInterrupt.
    """
    if not callable(model):
        raise TypeError(f"model must be a function of the conversation, not {type(model).__name__}")
    if name is None:
        name = getattr(model, "name", None) or getattr(model, "__name__", None)
    if not isinstance(name, str):
        raise TypeError("name: give the model's name (a str)")
    if isinstance(against, str):
        against = against.split(",")
    for arg, value, least in (("games", games, 1), ("columns_from", columns_from, 0),
                              ("retries", retries, 0), ("concurrency", concurrency, 1),
                              ("opponent_movetime_ms", opponent_movetime_ms, 1),
                              ("seed", seed, 0), ("max_total_tokens", max_total_tokens, 0)):
        if value is None and arg == "max_total_tokens":
            continue
        if not isinstance(value, int) or isinstance(value, bool) or not least <= value < 2**63:
            raise ValueError(f"{arg} {value!r}: expected a whole number, {least} or more")
    asked = {
        "name": name, "against": list(against), "games": games, "log": os.fspath(log),
        "prompt": prompt, "legal_moves": legal_moves, "columns_from": columns_from,
        "retries": retries, "concurrency": concurrency, "max_total_tokens": max_total_tokens,
        "opponent_movetime_ms": opponent_movetime_ms, "seed": seed, "rules": rules,
    }
    return json.loads(_native.llm_play(model, asked))


def report(log):
    """The summary of the model's `log` again, as `play` returns it
    (without 'left')."""
    return json.loads(_native.llm_report(os.fspath(log)))


def chat_completions(base_url, model, *, api_key_env="OPENAI_API_KEY", timeout=120.0,
                     retries=5, backoff=1.0, max_tokens=1024, temperature=0.0):
    """A model behind the chat-completions API (`POST {base_url}/chat/completions`,
    streaming off) as `play` calls it: OpenAI (`https://api.openai.com/v1`),
    vLLM, llama.cpp's server, Ollama.

    The key is read from the environment variable `api_key_env` (unset or
    empty: none is sent), goes in the Authorization header alone, and is
    blanked in every error. Each request may take `timeout` seconds; a
    lost connection, a timeout, 429, a 5xx or a body that is not the
    API's JSON is tried again up to `retries` times, waiting `backoff`
    seconds and twice as long each time (a server's Retry-After first),
    never over a minute; any other status raises ChatError at once.
    """
    return ChatCompletions(base_url, model, key=os.environ.get(api_key_env) or None,
                           timeout=timeout, retries=retries, backoff=backoff,
                           max_tokens=max_tokens, temperature=temperature)


class ChatCompletions:
    """A client of one model of the chat-completions API; made by
    `chat_completions`. Called with the conversation, it answers a dict of
    'content', 'prompt_tokens', 'completion_tokens' and 'requests'."""

    def __init__(self, base_url, model, *, key, timeout, retries, backoff, max_tokens,
                 temperature):
        parsed = urllib.parse.urlsplit(base_url)
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise ValueError(f"base_url {base_url!r}: expected an http:// or https:// URL with a host")
        if not (isinstance(timeout, (int, float)) and timeout > 0):
            raise ValueError(f"timeout {timeout!r}: expected seconds, more than 0")
        self.name = model
        self._endpoint = base_url.rstrip("/") + "/chat/completions"
        self._key = key
        self._timeout = float(timeout)
        self._retries = int(retries)
        self._backoff = float(backoff)
        self._body = {"model": model, "max_tokens": max_tokens, "temperature": temperature,
                      "stream": False}
        # A server on this machine is reached directly, whatever proxy the
        # environment names for the others; a redirect is not followed (it
        # would carry the key elsewhere), and so ends the run as any 3xx.
        handlers = [_NoRedirect()]
        if _is_loopback(parsed.hostname):
            handlers.append(urllib.request.ProxyHandler({}))
        self._opener = urllib.request.build_opener(*handlers)

    def __repr__(self):
        return f"chat_completions({self._endpoint[:-len('/chat/completions')]!r}, {self.name!r})"

    def __call__(self, messages):
        wait = self._backoff
        for tries in range(1, self._retries + 2):
            failure, asked_wait = self._try_once(messages)
            if isinstance(failure, dict):
                failure["requests"] = tries
                return failure
            if tries > self._retries:
                raise ChatError(f"no answer after {tries} tries; the last: {self._blank(failure)}")
            time.sleep(min(asked_wait if asked_wait is not None else wait, _MAX_WAIT))
            wait = min(wait * 2, _MAX_WAIT)
        raise AssertionError("unreachable")

    def _try_once(self, messages):
        """The answer of one request, or what failed that may pass and the
        wait the server asked for; raises ChatError on what will not."""
        body = json.dumps({**self._body, "messages": messages}).encode()
        request = urllib.request.Request(self._endpoint, data=body, method="POST",
                                         headers={"Content-Type": "application/json"})
        if self._key:
            request.add_header("Authorization", f"Bearer {self._key}")
        try:
            with self._opener.open(request, timeout=self._timeout) as response:
                text = response.read(_MAX_BODY + 1)
        except urllib.error.HTTPError as e:
            status, start = e.code, e.read(2000).decode("utf-8", "replace")
            if status == 429 or status >= 500:
                return f"HTTP {status}: {start[:200]}", _retry_after(e.headers.get("Retry-After"))
            raise ChatError(f"the server refused the request: HTTP {status}: "
                            f"{self._blank(start[:500])}") from None
        except (urllib.error.URLError, OSError) as e:
            return f"{type(e).__name__}: {getattr(e, 'reason', e)}", None
        if len(text) > _MAX_BODY:
            return f"an answer of over {_MAX_BODY} bytes", None
        try:
            answer = json.loads(text)
            content = answer["choices"][0]["message"].get("content") or ""
            usage = answer.get("usage") or {}
            return {"content": str(content),
                    "prompt_tokens": int(usage.get("prompt_tokens") or 0),
                    "completion_tokens": int(usage.get("completion_tokens") or 0)}, None
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            return f"an answer that is not the API's JSON: {text[:200]!r}", None

    def _blank(self, text):
        """`text` with the key blanked."""
        return text.replace(self._key, "<the key>") if self._key else text


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Follows no redirect: urllib raises the 3xx as an HTTPError."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


def _retry_after(value):
    """The wait a Retry-After header asks for, in seconds (a number or an
    HTTP date), if it asks for one."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _is_loopback(host):
    """Whether `host` names this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
