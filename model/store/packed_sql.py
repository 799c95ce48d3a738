"""SQL that reads an event's text, which may be packed on SQLite (sessionscope.store.payloads), and its chain hash,
kept there as bytes: no import here, so the command line's quick reader, which writes such SQL, stays light."""

SQL_FUNCTION = "plain_text"  # SQL's name for a packed text as text (registered by payloads.register_sql)
TEXT_OF_FUNCTION = "text_in_payload"  # an event's text kept as where it stands in its payload (payloads.text_in_payload)
# how a kept text that the payload holds begins (a zstd frame begins otherwise, and a plain text is no BLOB): a JSON
# string of the payload, or a few characters then a run of the payload's own (a tool call's `name {input}`)
TEXT_REF, TEXT_SPLICE = b"\x00T", b"\x00S"
IDS_OF_FUNCTION = "payload_with_ids"  # an event's payload kept without its row's ids (payloads.payload_with_ids)
IDS_OUT = b"\x01"  # how such a kept payload begins (a zstd frame begins otherwise, and a plain payload is no BLOB)


def sql_plain(column: str) -> str:
    """SQL for `column`'s text: a packed value through `plain_text`, a plain one as it is without a call into
    Python (a 200,000-event tree's query called it for every row: +57 ms, and the window's thread waited for the
    interpreter between the calls)."""
    return f"CASE WHEN typeof({column}) = 'blob' THEN {SQL_FUNCTION}({column}) ELSE {column} END"


def compact_hash(value):
    """An event's chain hash as SQLite keeps it (`schema.ChainHash`): the 32 bytes its 64 hex digits spell, a sixth
    of a chat-heavy store's event rows as digits (#61). Anything else stays as it is; a row written before is text."""
    if isinstance(value, str) and len(value) == 64:
        try:
            return bytes.fromhex(value)
        except ValueError:
            return value
    return value


def sql_hash(column: str = "hash") -> str:
    """SQL for a SQLite event's chain hash as its hex digits, kept as bytes or (written before) as text."""
    return f"CASE WHEN typeof({column}) = 'blob' THEN lower(hex({column})) ELSE {column} END"
