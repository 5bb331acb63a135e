"""Result blocks (store.blocks) and the JSON they travel as (store.fastjson)."""

import json
import math

from sqlalchemy import select

from store import blocks, chunk_entries, fastjson
from store.models import Chunk, ResultBlock
from tests.service.conftest import run_chunks
from tests.worker.conftest import as_read


def test_fastjson_takes_what_orjson_refuses():
    big = {"count": 2**70, "nodes": [1, 2]}
    assert fastjson.loads(fastjson.dumps(big)) == big
    assert math.isnan(fastjson.loads("NaN"))
    plain = {"a": [1, 2.5, None, "x"], "b": True}
    assert fastjson.dumps(plain) == json.dumps(plain, separators=(",", ":"))


def test_a_chunk_stores_its_answers_in_one_block_in_the_order_of_its_entries(app, client):
    items = [{"kind": "toy", "puzzle": d} for d in ("12", "0", "34")]
    job_id = client.post("/api/v1/jobs", json={"puzzles": items}).json["id"]
    sessions = app.extensions["sessions"]
    assert run_chunks(app) == 3
    with sessions() as s:
        (block_id,) = s.scalars(select(Chunk.block_id).where(Chunk.job_id == job_id))
        assert json.loads(s.scalar(select(ResultBlock.outcomes).where(ResultBlock.id == block_id)))[0][0] == \
            {"sum": 3}
        rows = chunk_entries.entries(s, job_id)
        assert {p.block_id for p in rows} == {block_id}
        read = as_read(s, rows)
    assert [p.result for p in read] == [{"sum": 3}, None, {"sum": 7}]
    items = client.get(f"/api/v1/jobs/{job_id}/puzzles").json["items"]
    assert [(i["status"], i["result"]) for i in items] == [("solved", {"sum": 3}), ("no_solution", None),
                                                          ("solved", {"sum": 7})]
    assert all(i["stats"] == p.stats for i, p in zip(items, read, strict=True))
    assert client.get(f"/api/v1/jobs/{job_id}/puzzles/2").json["result"] == {"sum": 7}


def test_answers_decodes_each_block_once_and_keeps_the_cache(app, client, monkeypatch):
    job_id = client.post("/api/v1/jobs", json={"puzzles": [{"kind": "toy", "puzzle": "5"}] * 4}).json["id"]
    sessions = app.extensions["sessions"]
    assert run_chunks(app) == 4
    with sessions() as s:
        rows = chunk_entries.entries(s, job_id)
    decoded = []
    monkeypatch.setattr(blocks.fastjson, "loads", lambda text: decoded.append(text) or json.loads(text))
    cache: dict = {}
    with sessions() as s:
        first = blocks.answers(s, rows[:2], cache)
        second = blocks.answers(s, rows[2:], cache)
    assert len(decoded) == 1 and list(cache) == [rows[0].block_id]
    assert len(first) == len(second) == 2
    assert all(result == {"sum": 5} and stats for result, stats in [*first.values(), *second.values()])
