"""Baseline: walk a tree, read every .org file, and run the @agent bytes prefilter."""

import os
import re
import sys

ADDRESS = re.compile(rb"^\*+ [^\n]*?(?<![\w.])@agent(?!\w)", re.M | re.I)
hits = 0
for directory, _dirs, names in os.walk(sys.argv[1]):
    for name in names:
        if name.endswith(".org"):
            with open(os.path.join(directory, name), "rb") as handle:
                data = handle.read()
            if b"@" in data and ADDRESS.search(data):
                hits += 1
print(hits)
