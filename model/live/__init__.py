"""Which agent is working, waiting for you or cut off: the hooks' signals, the agents' processes, the live states."""
