"""Work off the UI thread: workers, the child processes of imports, sync and search by meaning, live states and notifications."""
