"""``orgrouter serve``: a long-lived orgrouter an editor talks JSON-RPC 2.0 to.

``framing`` reads and writes the LSP base framing, ``server`` runs the call loop,
``methods`` answers the calls (``params`` checks their arguments), ``splices`` turns
a route's write-back stages into an editor's edits, ``pending`` lists what waits on
the user.
"""
