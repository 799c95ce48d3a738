"""Which Sessionscope this is: the installed version, and the schema revision this code reads and writes
(the newest Alembic migration's id).

Kept apart from db.py (which needs SQLAlchemy) so a light reader can check a store's revision;
tests/model/test_search_retention_schema.py holds it equal to Alembic's head.
"""

HEAD_REVISION = "0030"


def version() -> str:
    """The installed distribution's version (the About box and `sessionscope --version`)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version
    try:
        return dist_version("sessionscope")
    except PackageNotFoundError:
        return "unknown (not installed)"
