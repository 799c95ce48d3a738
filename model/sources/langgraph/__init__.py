"""LangGraph checkpointer databases (SqliteSaver files, PostgresSaver databases on a server), read through
langgraph's own saver.

reader    which threads changed (plain SQL), each checkpoint decoded by langgraph
values    LangChain messages and any state value as plain JSON
importer  checkpoints → step events, their messages, interrupts and state facts
actions   fork (a new thread) and rewind (update_state's copy) in the user's database
source    the operations every source offers, registered in model/sources/__init__.py
"""

from sessionscope.sources.langgraph.importer import (  # noqa: F401
    KIND,
    claims,
    claims_server,
    default_roots,
    import_paths,
    import_server,
    session_key,
)
