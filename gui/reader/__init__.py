"""One session shown: its timeline or the reader's cards, the branch tree, an event's detail, replay."""
