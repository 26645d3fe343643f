"""The golden set shipped with orgrouter: TOML case files (see orgrouter.route.golden)."""
