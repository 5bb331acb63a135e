"""Another client's small jobs while one client abuses the service: slow webhook receivers,
Sudokus whose options the predictor does not model, and a flood of generate items that cannot be met.

    python -m bench.abuse [--receivers 4] [--backtrack 16] [--generate 2000] [--budget SECONDS]

Needs the real PostgreSQL and Redis (TEST_DATABASE_URL / TEST_REDIS_URL, as the integration
tests). On fresh databases it runs the workers as docker-compose.yml does: two of both lanes,
one kept for cheap work and the callbacks' worker, with tokens for two clients. First the
other client's two jobs run alone: an 8-queens and an n = 14 count. Then the abuser posts, at
once: ``--receivers`` jobs whose ``callback_url`` is a local receiver that answers a byte every
4 s; a job of ``--backtrack`` 17-clue Sudokus with ``strategy: backtrack`` (minutes of search
each, which the predictor does not model); a generate item of ``--generate`` Sudokus rated 11.5
or more (almost never met, so each runs to its attempts' end). After ``--settle`` seconds, with
the abuse running, the other client's two jobs run again. Prints what the service answered each
POST and each job's seconds from its POST to completed, beside the targets (5 s and 30 s); the
abuser's jobs are cancelled at the end.
"""

from __future__ import annotations

import argparse
import logging
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from store.db import migrate
from tests.support.devstack import Stack, Workers, app_for, fresh_postgres, fresh_redis, service_env

ROOT = Path(__file__).resolve().parents[1]
SUDOKUS = ROOT / "tests" / "data" / "sudoku" / "tdoku_puzzles2_17_clue_first10000.txt"
TOKENS = {"abuser": "token-of-the-abuser", "other": "token-of-the-other-client"}
# The other client's jobs: (name, items, target seconds from POST to completed)
SMALL = [("8-queens", [{"kind": "nqueens", "puzzle": 8}], 5.0),
         ("n = 14 count", [{"kind": "nqueens", "puzzle": 14, "options": {"mode": "count"}}], 30.0)]


class _Trickle(BaseHTTPRequestHandler):
    """A webhook receiver that takes the delivery and answers one byte every 4 s."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200)
        self.send_header("Content-Length", "60")
        self.end_headers()
        for _ in range(60):
            if self.server.closing:  # type: ignore[attr-defined]
                return
            try:
                self.wfile.write(b"x")
                self.wfile.flush()
            except OSError:  # the service gave up on this delivery, as it should
                return
            time.sleep(4)

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def trickling_receiver() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Trickle)
    server.closing = False  # type: ignore[attr-defined]
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/hook"
    finally:
        server.closing = True  # type: ignore[attr-defined]
        server.shutdown()


def auth(client: str) -> dict[str, Any]:
    return {"headers": {"Authorization": f"Bearer {TOKENS[client]}"}}


def post(stack: Stack, client: str, body: dict) -> tuple[int, str | None, str]:
    """(status, job id, the error's first words) of a POST of ``body`` by ``client``."""
    r = stack.client.post("/api/v1/jobs", json=body, **auth(client))
    answer = r.get_json(silent=True) or {}
    return r.status_code, answer.get("id"), str(answer.get("error", ""))[:90]


def seconds_to_complete(stack: Stack, items: list[dict], timeout: float) -> float:
    start = time.monotonic()
    status, job, error = post(stack, "other", {"puzzles": items})
    if job is None:
        raise RuntimeError(f"the other client's POST got {status}: {error}")
    done = stack.wait(job, timeout=timeout, **auth("other"))
    if done["status"] != "completed" or done["counts"].get("solved") != len(items):
        raise RuntimeError(f"the other client's job ended {done['status']}: {done['counts']}")
    return time.monotonic() - start


def abuse(stack: Stack, receiver: str, args: argparse.Namespace) -> list[tuple[str, int, str | None, str]]:
    lines = [line.split()[0] for line in SUDOKUS.read_text().splitlines() if line[:1] not in ("#", "")]
    posts = [(f"job {i + 1} calling back the slow receiver",
              {"puzzles": [{"kind": "nqueens", "puzzle": 6}], "callback_url": receiver})
             for i in range(args.receivers)]
    posts.append((f"{args.backtrack} Sudokus, strategy backtrack",
                  {"puzzles": [{"kind": "sudoku", "puzzle": p, "options": {"strategy": "backtrack"}}
                               for p in lines[:args.backtrack]]}))
    posts.append((f"generate {args.generate} Sudokus rated 11.5 or more",
                  {"puzzles": [{"kind": "sudoku",
                                "generate": {"count": args.generate, "rating_min": 11.5}}]}))
    return [(name, *post(stack, "abuser", body)) for name, body in posts]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--receivers", type=int, default=4)
    parser.add_argument("--backtrack", type=int, default=16)
    parser.add_argument("--generate", type=int, default=2000)
    parser.add_argument("--settle", type=float, default=10.0,
                        help="seconds of abuse before the other client posts")
    parser.add_argument("--budget", help="CLIENT_CPU_BUDGET (CPU seconds a client may have unfinished)")
    args = parser.parse_args()
    settings = {"API_TOKENS": ",".join(f"{name}:{token}" for name, token in TOKENS.items()),
                "WEBHOOK_ALLOWED_HOSTS": "127.0.0.1", "WEBHOOK_SECRET": "bench-secret"}
    if args.budget:
        settings["CLIENT_CPU_BUDGET"] = args.budget
    with fresh_postgres() as db_url, fresh_redis() as redis_url, tempfile.TemporaryDirectory() as logs, \
            trickling_receiver() as receiver:
        migrate(db_url)
        env = service_env(db_url, redis_url, f"bench-{uuid.uuid4().hex[:8]}", **settings)
        workers = Workers(env, Path(logs))
        try:
            workers.start()
            workers.start()
            workers.start(cheap_only=True)
            workers.start_callbacks()
            stack = Stack(app_for(env), workers)
            logging.getLogger("service.access").setLevel(logging.WARNING)  # a line per poll otherwise
            alone = [seconds_to_complete(stack, items, 120) for _, items, _ in SMALL]
            posted = abuse(stack, receiver, args)
            time.sleep(args.settle)
            loaded = [seconds_to_complete(stack, items, 600) for _, items, _ in SMALL]
            for _, _, job, _ in posted:
                if job is not None:
                    stack.client.post(f"/api/v1/jobs/{job}/cancel", **auth("abuser"))
        finally:
            workers.stop()
    print("| the abuser's POST | answer |")
    print("|---|---|")
    for name, status, _, error in posted:
        print(f"| {name} | {status}{': ' + error if error else ''} |")
    print()
    print("| the other client's job | alone, s | under the abuse, s | target, s |")
    print("|---|---:|---:|---:|")
    for (name, _, target), quiet, busy in zip(SMALL, alone, loaded, strict=True):
        print(f"| {name} | {quiet:.1f} | {busy:.1f} | {target:g} |")


if __name__ == "__main__":
    main()
