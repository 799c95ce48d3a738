"""Keeping what the store holds safe: untrusted input, privacy, the audit log, backups, repair, retention, team rules."""
