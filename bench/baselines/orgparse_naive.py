"""Baseline: the naive approach, orgparse every .org file and look at every heading."""

import os
import sys

import orgparse

hits = 0
for directory, _dirs, names in os.walk(sys.argv[1]):
    for name in names:
        if name.endswith(".org"):
            with open(os.path.join(directory, name), encoding="utf-8") as handle:
                root = orgparse.loads(handle.read())
            hits += sum("@agent" in node.heading.lower() for node in root[1:])
print(hits)
