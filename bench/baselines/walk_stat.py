"""Baseline: walk a tree and stat every .org file (what any change check must do)."""

import os
import sys

count = 0
for directory, _dirs, names in os.walk(sys.argv[1]):
    for name in names:
        if name.endswith(".org"):
            os.stat(os.path.join(directory, name))
            count += 1
print(count)
