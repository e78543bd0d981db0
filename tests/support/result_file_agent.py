"""An agent process that only writes its result file and exits: ``--answer TEXT`` writes
``{"answer": TEXT}`` to ``--result``, ``--garbage`` writes a file that is not JSON."""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--result", required=True, help="the episode's {result_file}")
    parser.add_argument("--answer", help="the final answer to write")
    parser.add_argument("--garbage", action="store_true", help="write a file that is not JSON")
    args = parser.parse_args()
    text = "not json {" if args.garbage else json.dumps({"answer": args.answer})
    Path(args.result).write_text(text, "utf-8")


if __name__ == "__main__":
    main()
