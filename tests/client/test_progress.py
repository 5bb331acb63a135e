"""The progress bar: filled by the work done as the service weighs it, with the service's eta."""

from __future__ import annotations

import io

from client.progress import ProgressBar, service_eta, weighted


def job(total, done, progress, seconds=None, eta=None, band=None):
    counts = {"queued": total - done, "running": 0, "solved": done, "no_solution": 0, "failed": 0,
              "cancelled": 0}
    return {"id": "j", "status": "running", "total": total, "counts": counts, "progress": progress,
            "estimated_seconds_total": seconds, "eta_seconds": eta, "eta_range": band}


def test_the_bar_fills_with_the_predicted_work_and_counts_puzzles_apart():
    # Nine easy puzzles of ten done, but a tenth of the predicted work: the bar shows 10 %.
    line = ProgressBar(io.StringIO()).line([job(10, 9, 0.1, seconds=100.0, eta=90.0, band=[60.0, 150.0])])
    assert line.startswith("[##......................]  9/10  10%")
    assert "ETA 1m30s (1m00s-2m30s)" in line


def test_several_jobs_weigh_by_their_predicted_seconds_and_the_last_eta_counts():
    jobs = [job(2, 1, 0.5, seconds=30.0, eta=10.0, band=[5.0, 20.0]),
            job(4, 0, 0.0, seconds=10.0, eta=40.0, band=[30.0, 50.0])]
    assert weighted(jobs) == 15.0 / 40.0
    assert service_eta(jobs) == (40.0, (30.0, 50.0))


def test_without_predictions_the_bar_counts_puzzles_and_the_eta_comes_from_the_rate():
    jobs = [job(2, 1, 0.5), job(4, 2, 0.5)]
    assert weighted(jobs) == 0.5 and service_eta(jobs) is None
    assert "ETA" not in ProgressBar(io.StringIO()).line(jobs)  # no rate seen yet
