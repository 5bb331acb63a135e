"""store.activity's weighted percentiles: a chunk's entries share its latency, each counted."""

from __future__ import annotations

from store.activity import _percentiles


def test_percentiles_count_each_value_as_often_as_its_weight():
    assert _percentiles([]) == (None, None)
    assert _percentiles([(2.5, 1)]) == (2.5, 2.5)
    assert _percentiles([(1.0, 60), (10.0, 40)]) == (1.0, 10.0)
    assert _percentiles([(10.0, 99), (1.0, 1)]) == (10.0, 10.0)
    assert _percentiles([(3.0, 1), (1.0, 1), (2.0, 1), (4.0, 1)]) == (2.0, 4.0)
