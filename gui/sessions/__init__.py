"""The session list and what acts on its sessions: the table model, its rows, the session actions one at a time or many."""
