"""SQL that reads an event's text, which may be packed on SQLite (sessionscope.store.payloads): no import here, so
the command line's quick reader, which writes such SQL, stays light."""

SQL_FUNCTION = "plain_text"  # SQL's name for a packed text as text (registered by payloads.register_sql)


def sql_plain(column: str) -> str:
    """SQL for `column`'s text: a packed value through `plain_text`, a plain one as it is without a call into
    Python (a 200,000-event tree's query called it for every row: +57 ms, and the window's thread waited for the
    interpreter between the calls)."""
    return f"CASE WHEN typeof({column}) = 'blob' THEN {SQL_FUNCTION}({column}) ELSE {column} END"
