"""A loopback JSON HTTP server for testing OpenAI-compatible clients (127.0.0.1 only)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable


def serve(handler: Callable[[str, dict, dict], object]) -> tuple[ThreadingHTTPServer, str]:
    """Start a server answering every POST with ``handler(path, body, headers)``.

    The handler returns a JSON-able payload, or ``(status, payload)``.  Returns
    the server (call ``shutdown()``) and its OpenAI-style base URL.
    """

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 - http.server API
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            reply = handler(self.path, body, dict(self.headers))
            status, payload = reply if isinstance(reply, tuple) else (200, reply)
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/v1"


def vllm_like(path: str, body: dict) -> dict:
    """A completions reply with top logprobs, as vLLM gives: " True" likely for prompts that mention the Louvre,
    " False" for the others."""
    prompts = body["prompt"]
    choices = []
    for i, prompt in enumerate(prompts):
        top = {" True": -0.2, " False": -1.8} if "Louvre" in prompt else {" False": -0.1, " True": -2.5}
        choices.append({"index": i, "text": "x", "logprobs": {"top_logprobs": [top]}})
    return {"choices": choices, "usage": {"prompt_tokens": 7 * len(prompts)}}
