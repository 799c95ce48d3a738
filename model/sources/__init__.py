"""One module per external tool: discover its sessions, import them, act on them."""
