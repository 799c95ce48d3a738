"""Where sessions are kept: the tables and migrations, opening a store, appending and importing events, kept files."""
