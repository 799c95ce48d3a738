"""Dialogs that ask or show before anything is done: settings, export, continue, restore, search, summarize, sync."""
