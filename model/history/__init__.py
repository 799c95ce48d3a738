"""A session's history, read and changed: branches, trees, facts, the reader's cards, forks, rewinds, restores."""
