"""Fake model APIs for the real-host end-to-end tests (stdlib only, 127.0.0.1, random free port).

    with FakeAnthropic() as api:            # Claude Code: ANTHROPIC_BASE_URL=api.url
        ...run claude -p ...
        api.bodies()                         # every JSON request body received, in order

    with FakeOpenAI() as api:               # Codex: base_url = api.url + "/v1", wire_api = "responses"
        ...

Both record every request (method, path, headers, parsed body). The answer to a model request comes
from `responder(body, server)`, which returns a Reply; the default answers plain text. `ToolOnce`
answers one tool call when the latest user turn contains a trigger string, and text otherwise, so the
hosts' side requests (titles, summaries, command-safety checks) never consume the scripted tool call.
"""
import json
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

__all__ = ["Reply", "ToolOnce", "FakeAnthropic", "FakeOpenAI", "text_of"]


class Reply(object):
    """What the fake model answers: plain text, or one tool call (name + input dict)."""

    def __init__(self, text=None, tool_name=None, tool_input=None):
        self.text = text if text is not None else ("" if tool_name else "OK from the fake model.")
        self.tool_name = tool_name
        self.tool_input = {} if tool_input is None else tool_input  # a str for a freeform tool

    def __repr__(self):
        return "Reply(text=%r, tool=%r, input=%r)" % (self.text, self.tool_name, self.tool_input)


def text_of(obj):
    """All text inside a JSON value (message content blocks, nested lists), joined by newlines."""
    out = []

    def walk(v):
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)
    walk(obj)
    return "\n".join(out)


class ToolOnce(object):
    """Responder: the first model request whose latest user turn contains `trigger` and that offers a
    tool named `tool_name` gets that tool call; every other request gets a text reply. `tool_input` may
    be a dict, or a callable(body) -> dict (e.g. to fit the tool's schema)."""

    def __init__(self, trigger, tool_name, tool_input, text="Done."):
        self.trigger = trigger
        self.tool_name = tool_name
        self.tool_input = tool_input
        self.text = text
        self.fired = False
        self._lock = threading.Lock()

    def __call__(self, body, server):
        with self._lock:
            if (not self.fired and self.tool_name in server.tool_names(body)
                    and self.trigger in server.last_user_text(body)):
                self.fired = True
                args = self.tool_input(body) if callable(self.tool_input) else self.tool_input
                return Reply(tool_name=self.tool_name, tool_input=args)
        return Reply(text=self.text)


def _default_responder(body, server):
    return Reply()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fake-model-api/1"

    def log_message(self, *args):  # quiet
        pass

    def _read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if not length and self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int(self.rfile.readline().strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    break
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            raw = b"".join(chunks)
        encoding = (self.headers.get("Content-Encoding") or "").lower()
        if raw and encoding == "gzip":
            import gzip
            raw = gzip.decompress(raw)
        elif raw and encoding:
            raw = ("<%s-encoded body, not decodable here>" % encoding).encode()
        try:
            return raw, (json.loads(raw.decode("utf-8")) if raw else None)
        except ValueError:
            return raw, None

    def _handle(self):
        raw, body = self._read_body()
        path = self.path.split("?", 1)[0]
        entry = {"method": self.command, "path": path, "headers": dict(self.headers.items()),
                 "raw": raw.decode("utf-8", "replace"), "body": body}
        self.server.owner._record(entry)
        try:
            self.server.owner._route(self, self.command, path, body)
        except (BrokenPipeError, ConnectionResetError):
            pass

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _handle

    # -- response writers used by the servers
    def send_json(self, obj, status=200):
        data = json.dumps(obj).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def send_sse(self, events):
        """events: list of (event name, JSON object). Sent in one go, then the connection is closed."""
        parts = []
        for name, obj in events:
            parts.append("event: %s\ndata: %s\n\n" % (name, json.dumps(obj)))
        data = "".join(parts).encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()
        self.close_connection = True


class _FakeServer(object):
    def __init__(self, responder=None):
        self.responder = responder or _default_responder
        self.requests = []
        self.replies = []  # (request index, Reply) for every model request answered
        self._lock = threading.Lock()
        self._httpd = None
        self._thread = None
        self.url = None

    # -- lifecycle
    def start(self):
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._httpd.daemon_threads = True
        self._httpd.owner = self
        self.port = self._httpd.server_address[1]
        self.url = "http://127.0.0.1:%d" % self.port
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.1},
                                        name=type(self).__name__, daemon=True)
        self._thread.start()
        return self

    def stop(self):
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False

    # -- recording
    def _record(self, entry):
        with self._lock:
            entry["index"] = len(self.requests)
            self.requests.append(entry)

    def mark(self):
        """Number of requests so far: pass to bodies(since=...) to see only later ones."""
        with self._lock:
            return len(self.requests)

    def model_requests(self, since=0):
        with self._lock:
            return [r for r in self.requests[since:] if r["method"] == "POST" and r["path"] == self.model_path]

    def bodies(self, since=0):
        """Raw text of every model request body since `since` (what a marker search should look at)."""
        return [r["raw"] for r in self.model_requests(since)]

    def any_body_contains(self, needle, since=0):
        return any(needle in raw for raw in self.bodies(since))

    def describe(self, since=0, limit=400):
        """Short listing of the requests (for assertion messages)."""
        with self._lock:
            reqs = list(self.requests[since:])
        lines = []
        for r in reqs:
            lines.append("%s %s %s" % (r["method"], r["path"], r["raw"][:limit].replace("\n", " ")))
        return "\n".join(lines) or "(no requests)"

    def _answer(self, body):
        reply = self.responder(body or {}, self)
        with self._lock:
            self.replies.append((len(self.requests) - 1, reply))
        return reply


class FakeAnthropic(_FakeServer):
    """Anthropic Messages API: POST /v1/messages (SSE when "stream": true, JSON otherwise),
    POST /v1/messages/count_tokens -> {"input_tokens": 1}; anything else -> {} (GET) or an empty ok."""

    model_path = "/v1/messages"

    @staticmethod
    def tool_names(body):
        return [t.get("name") for t in (body.get("tools") or []) if isinstance(t, dict)]

    @staticmethod
    def last_user_text(body):
        """Text of the latest user message that is not only tool results."""
        for msg in reversed(body.get("messages") or []):
            if msg.get("role") != "user":
                continue
            content = msg.get("content")
            if isinstance(content, str):
                return content
            blocks = [b for b in (content or []) if isinstance(b, dict)]
            if blocks and all(b.get("type") == "tool_result" for b in blocks):
                return ""  # a tool result turn: the model should now answer in text
            return "\n".join(b.get("text", "") for b in blocks if b.get("type") == "text")
        return ""

    def _route(self, h, method, path, body):
        if method == "POST" and path == "/v1/messages/count_tokens":
            return h.send_json({"input_tokens": 1})
        if method == "POST" and path == "/v1/messages":
            body = body or {}
            reply = self._answer(body)
            model = body.get("model") or "claude-fake"
            msg_id = "msg_" + uuid.uuid4().hex[:20]
            if reply.tool_name:
                block = {"type": "tool_use", "id": "toolu_" + uuid.uuid4().hex[:20], "name": reply.tool_name,
                         "input": reply.tool_input}
                stop = "tool_use"
            else:
                block = {"type": "text", "text": reply.text}
                stop = "end_turn"
            usage = {"input_tokens": 1, "output_tokens": 1, "cache_creation_input_tokens": 0,
                     "cache_read_input_tokens": 0}
            if not body.get("stream"):
                return h.send_json({"id": msg_id, "type": "message", "role": "assistant", "model": model,
                                    "content": [block], "stop_reason": stop, "stop_sequence": None,
                                    "usage": usage})
            if reply.tool_name:
                start = dict(block, input={})
                delta = {"type": "input_json_delta", "partial_json": json.dumps(reply.tool_input)}
            else:
                start = {"type": "text", "text": ""}
                delta = {"type": "text_delta", "text": reply.text}
            events = [
                ("message_start", {"type": "message_start", "message": {
                    "id": msg_id, "type": "message", "role": "assistant", "model": model, "content": [],
                    "stop_reason": None, "stop_sequence": None, "usage": usage}}),
                ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": start}),
                ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
                ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                ("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                   "usage": {"output_tokens": 1}}),
                ("message_stop", {"type": "message_stop"}),
            ]
            return h.send_sse(events)
        if method == "GET":
            return h.send_json({"data": [], "has_more": False})
        return h.send_json({})


class FakeOpenAI(_FakeServer):
    """OpenAI Responses API: POST /v1/responses as SSE (response.created, response.output_item.done,
    response.completed with usage). GET /v1/models -> an empty list; anything else -> {}."""

    model_path = "/v1/responses"
    usage_tokens = 1  # input tokens reported per response; raise it to push Codex into auto-compaction

    @staticmethod
    def tool_names(body):
        names = []
        for t in body.get("tools") or []:
            if isinstance(t, dict):
                names.append(t.get("name") or t.get("type"))
        return names

    @staticmethod
    def tool_type(body, name):
        for t in body.get("tools") or []:
            if isinstance(t, dict) and t.get("name") == name:
                return t.get("type")
        return None

    @staticmethod
    def last_user_text(body):
        items = body.get("input") or []
        if isinstance(items, str):
            return items
        for item in reversed(items):
            if not isinstance(item, dict):
                continue
            if item.get("type") in ("function_call_output", "custom_tool_call_output", "function_call",
                                    "custom_tool_call", "local_shell_call", "local_shell_call_output"):
                return ""  # the tool already ran: answer in text
            if item.get("role") == "user":
                return text_of(item.get("content"))
        return ""

    def _route(self, h, method, path, body):
        if method == "POST" and path.endswith("/responses"):
            body = body or {}
            reply = self._answer(body)
            resp_id = "resp_" + uuid.uuid4().hex[:20]
            if reply.tool_name and self.tool_type(body, reply.tool_name) == "custom":
                # freeform tool (Codex's apply_patch): the input is raw text
                item = {"type": "custom_tool_call", "id": "ctc_" + uuid.uuid4().hex[:20],
                        "call_id": "call_" + uuid.uuid4().hex[:20], "name": reply.tool_name,
                        "input": reply.tool_input if isinstance(reply.tool_input, str)
                        else json.dumps(reply.tool_input), "status": "completed"}
            elif reply.tool_name:
                item = {"type": "function_call", "id": "fc_" + uuid.uuid4().hex[:20],
                        "call_id": "call_" + uuid.uuid4().hex[:20], "name": reply.tool_name,
                        "arguments": json.dumps(reply.tool_input), "status": "completed"}
            else:
                item = {"type": "message", "role": "assistant", "id": "msg_" + uuid.uuid4().hex[:20],
                        "status": "completed",
                        "content": [{"type": "output_text", "text": reply.text, "annotations": []}]}
            n = int(self.usage_tokens)
            usage = {"input_tokens": n, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 1,
                     "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": n + 1}
            events = [
                ("response.created", {"type": "response.created",
                                      "response": {"id": resp_id, "object": "response", "status": "in_progress"}}),
                ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0,
                                               "item": item}),
                ("response.completed", {"type": "response.completed",
                                        "response": {"id": resp_id, "object": "response", "status": "completed",
                                                     "usage": usage}}),
            ]
            return h.send_sse(events)
        if method == "GET" and path.endswith("/models"):
            return h.send_json({"object": "list", "data": [], "models": []})
        return h.send_json({})
