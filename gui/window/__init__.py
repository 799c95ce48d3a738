"""The main window and what it is built from: the action table and menus, layout, theme, the sidebar, startup."""
