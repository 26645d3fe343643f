"""Run the command-line interface as ``python -m orgrouter``."""

from orgrouter.cli import main

if __name__ == "__main__":
    main()
