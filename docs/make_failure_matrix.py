"""Run the faulty-agent suite and write its confusion matrix into docs/failure-codes.md.

Every case of the faulty-agent suite (``webharness.testing.all_cases``) is played in a
real Chromium (text observations), scored as the runner scores (golden traces of the
same seed, alignment, annotation), and tabulated (``webharness.testing.matrix``):
expected code × annotated code, per-code precision, recall and exact-step rate, the
headline figures, then each case with its step, stage, flag and divergence agreement.
The section between the ``failure-matrix`` markers of docs/failure-codes.md is replaced.

    python docs/make_failure_matrix.py              # every case, writes the docs
    python docs/make_failure_matrix.py form async   # only these scenarios, prints only
    python docs/make_failure_matrix.py --live       # also live wrappers vs offline re-score

Exits 1 when any case disagrees (every mismatch is a bug to fix, in the annotator or in
the case).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "failure-codes.md"
START, END = "<!-- failure-matrix:start -->", "<!-- failure-matrix:end -->"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "scenarios", nargs="*", help="only these scenarios (a partial run leaves the docs alone)"
    )
    parser.add_argument(
        "--fault", action="append", default=[], help="only cases of this fault (repeatable)"
    )
    parser.add_argument(
        "--live",
        action="store_true",
        help="also play each case through the diagnosis wrappers and compare with the "
        "offline re-score of its saved trace",
    )
    args = parser.parse_args(argv)
    from webharness.testing import SEED, Bench, FaultSetupError, all_cases, matrix_markdown
    from webharness.testing.live import LiveStack, live_agrees

    cases = [
        c
        for c in all_cases()
        if (not args.scenarios or c.scenario in args.scenarios)
        and (not args.fault or c.fault.name in args.fault)
    ]
    partial = bool(args.scenarios or args.fault)
    bench = Bench()
    live = LiveStack(Path(tempfile.mkdtemp(prefix="live-")), SEED) if args.live else None
    live_bad: list[str] = []
    results, setup_errors, started = [], [], time.perf_counter()
    try:
        for case in cases:
            try:
                result = bench.run(case)
            except FaultSetupError as exc:  # the case is wrong: say so, and fail the run
                print(f"SETUP {case.id}: {exc}", flush=True)
                setup_errors.append(case.id)
                continue
            results.append(result)
            if live is not None and not live_agrees(live.play(case)[0], bench, case.scenario):
                live_bad.append(case.id)
                print(f"LIVE {case.id}: live and offline diagnoses differ", flush=True)
            mark = "ok " if result.ok else "BAD"
            print(
                f"{mark} {case.id}: expected {result.expected}, annotated {result.annotated}",
                flush=True,
            )
    finally:
        bench.close()
        if live is not None:
            live.close()
    minutes = (time.perf_counter() - started) / 60
    table = matrix_markdown(results)
    if partial:
        print(table)
    else:
        header = (
            f'{len(results)} cases, seed {SEED}, `obs_mode="text"`; '
            "written by `python docs/make_failure_matrix.py"
            + (" --live" if live is not None else "")
            + "` "
            f"({minutes:.0f} min on a shared 2-core machine)"
            + (
                f"; live annotation and the offline re-score of the saved trace agree on "
                f"{len(results) - len(live_bad)}/{len(results)} cases."
                if live is not None
                else "."
            )
        )
        write_section(f"{header}\n\n{table}")
    bad = [r.case.id for r in results if not r.ok] + setup_errors + live_bad
    print(
        f"{len(cases) - len(bad)}/{len(cases)} cases agree ({minutes:.1f} min)"
        + (f"; mismatches: {bad}" if bad else "")
    )
    return 1 if bad else 0


def write_section(body: str) -> None:
    text = DOCS.read_text()
    if START not in text or END not in text:
        raise SystemExit(f"{DOCS} has no {START} ... {END} section to fill")
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    DOCS.write_text(f"{head}{START}\n{body}\n{END}{tail}")


if __name__ == "__main__":
    raise SystemExit(main())
