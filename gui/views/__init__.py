"""Views across sessions, each opened from a menu: usage, tool outcomes, pins and notes, Needs You, compare, blame."""
