"""Run the faulty-agent suite and write its confusion matrix into docs/failure-codes.md.

Every case of ``tests/test_failure_suite.py`` is played in a real Chromium (text
observations), scored as the runner scores (golden traces of the same seed, alignment,
annotation), and tabulated: expected code × annotated code, then each case with its
step, stage and flag agreement. The section between the ``failure-matrix`` markers of
docs/failure-codes.md is replaced.

    python docs/make_failure_matrix.py              # every case, writes the docs
    python docs/make_failure_matrix.py form async   # only these scenarios, prints only

Exits 1 when any case disagrees (every mismatch is a bug to fix, in the annotator or in
the case).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "failure-codes.md"
START, END = "<!-- failure-matrix:start -->", "<!-- failure-matrix:end -->"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "scenarios", nargs="*", help="only these scenarios (the docs are then left alone)"
    )
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from tests.diagnosis.test_failure_suite import CASES, SEED, Bench, matrix_markdown

    cases = [c for c in CASES.values() if not args.scenarios or c.scenario in args.scenarios]
    bench = Bench()
    results, started = [], time.perf_counter()
    try:
        for case in cases:
            result = bench.run(case)
            results.append(result)
            mark = "ok " if result.ok else "BAD"
            print(
                f"{mark} {case.id}: expected {result.expected}, annotated {result.annotated}",
                flush=True,
            )
    finally:
        bench.close()
    minutes = (time.perf_counter() - started) / 60
    table = matrix_markdown(results)
    if args.scenarios:
        print(table)
    else:
        header = (
            f'{len(results)} cases, seed {SEED}, `obs_mode="text"`; '
            "written by `python docs/make_failure_matrix.py` "
            f"({minutes:.0f} min on a shared 2-core machine)."
        )
        write_section(f"{header}\n\n{table}")
    bad = [r.case.id for r in results if not r.ok]
    print(
        f"{len(results) - len(bad)}/{len(results)} cases agree ({minutes:.1f} min)"
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
