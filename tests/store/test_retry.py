"""How a retry's options merge into a puzzle's stored ones (store.retry.merged)."""

from __future__ import annotations

from store.retry import merged


def test_an_object_merges_key_by_key_at_every_depth():
    stored = {"strategy": "auto", "generate": {"size": 9, "seed": 77, "deep": {"a": 1, "b": 2}}}
    new = {"generate": {"seed": 3, "deep": {"b": 5}}}
    assert merged(stored, new) == {"strategy": "auto",
                                   "generate": {"size": 9, "seed": 3, "deep": {"a": 1, "b": 5}}}
    assert stored["generate"]["seed"] == 77 and stored["generate"]["deep"] == {"a": 1, "b": 2}  # not changed


def test_a_value_replaces_and_null_removes():
    stored = {"split": 4, "generate": {"seed": 1, "symmetry": "rotational"}, "mode": "count"}
    assert merged(stored, {"split": None, "mode": "all", "generate": {"symmetry": None}, "new": [1]}) == {
        "generate": {"seed": 1}, "mode": "all", "new": [1]}
    assert merged(stored, {"generate": 5}) == {**stored, "generate": 5}  # not an object: replaced
    assert merged({"x": 1}, {"x": {"y": 2}}) == {"x": {"y": 2}}
    assert merged(stored, {}) == stored and merged(stored, {"nope": None}) == stored
