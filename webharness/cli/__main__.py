"""``python -m webharness.cli``: the ``webharness`` command."""

import sys

from webharness.cli.app import main

sys.exit(main())
