"""Choosing the fitter for ``quiz optimize``: fsrs-rs (``fsrs_rs_python``, Rust) against py-fsrs's
optimizer (torch; needs pandas, which quizzer does not depend on: ``pip install pandas`` to run
this) on the 12,580 real reviews in ``../shared/data/fsrs-review-log-12k.csv``.

Both fit on the earlier 3/4 of the long-term reviews (``quizzer.scheduling.fit``'s split); both
fits and the defaults are scored on the later 1/4 by fsrs-rs's ``evaluate`` (``fit.score``).
Prints a Markdown table (fit time, ratio to fsrs-rs, scores); ``--json`` prints the numbers.

Usage: python bench/bench_optimize.py [--runs N] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from pathlib import Path

from quizzer.scheduling import fit
from quizzer.transfer.fsrs_csv import LoggedReview, read_review_log

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "fsrs-review-log-12k.csv"


def py_fsrs_fit(reviews: Sequence[LoggedReview], before: datetime) -> tuple[float, ...]:
    """py-fsrs's torch optimizer on the reviews made before ``before`` (the same earlier part)."""
    from fsrs import Optimizer, Rating, ReviewLog

    ids = {card_id: i for i, card_id in enumerate(dict.fromkeys(r.card_id for r in reviews))}
    logs = [ReviewLog(card_id=ids[r.card_id], rating=Rating(r.rating), review_datetime=r.reviewed_at,
                      review_duration=r.duration_ms) for r in reviews if r.reviewed_at < before]
    return tuple(Optimizer(logs).compute_optimal_parameters())


def timed(run: Callable[[], tuple[float, ...]], runs: int) -> tuple[float, tuple[float, ...]]:
    """Median seconds of ``runs`` calls, and the last result."""
    times, result = [], ()
    for _ in range(runs):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs of the fsrs-rs fit (py-fsrs runs once)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    reviews = read_review_log(DATA, now=datetime.now(timezone.utc))
    items = fit.items_of(reviews)
    cut = int(len(items) * fit.TRAIN_SHARE)
    earlier, later = items[:cut], items[cut:]
    rs_seconds, rs_parameters = timed(lambda: fit.fit(earlier), args.runs)
    py_seconds, py_parameters = timed(lambda: py_fsrs_fit(reviews, later[0].at), 1)
    rows = {"defaults": (None, fit.score(later, fit.default_parameters())),
            "fsrs-rs": (rs_seconds, fit.score(later, rs_parameters)),
            "py-fsrs optimizer": (py_seconds, fit.score(later, py_parameters))}
    if args.json:
        print(json.dumps({name: {"seconds": s, "log_loss": sc.log_loss, "rmse_bins": sc.rmse_bins}
                          for name, (s, sc) in rows.items()}, indent=2))
        return
    print(f"{len(reviews)} reviews, {len(items)} on a later day than the card's previous one: "
          f"fit on the earlier {len(earlier)}, scored on the later {len(later)}\n")
    print("| fitter | fit time | × fsrs-rs | log loss | RMSE(bins) |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, (seconds, scores) in rows.items():
        shown = "—" if seconds is None else f"{seconds:.2f} s"
        ratio = "—" if seconds is None else f"{seconds / rs_seconds:.0f}×"
        print(f"| {name} | {shown} | {ratio} | {scores.log_loss:.4f} | {scores.rmse_bins:.4f} |")


if __name__ == "__main__":
    main()
