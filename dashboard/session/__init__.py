"""Per-visitor and per-server state: the view bound to the URL (state.py), who may do what (access.py, logins.py),
the gates that say why a page cannot show yet (gates.py), the upload journal (uploads.py), the server's log and its
time per script run (serverlog.py, timing.py), and the server process's one numpy setting (hugepages.py)."""
