"""Baseline: start Python and read stdin (the floor for any filter)."""

import sys

sys.stdout.write(str(len(sys.stdin.buffer.read())) + "\n")
