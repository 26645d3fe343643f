"""orgrouter: route @agent requests in Org notes to skills and write results back."""

__version__ = "0.1.0"
