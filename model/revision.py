"""The schema revision this code reads and writes: the newest Alembic migration's id.

Kept apart from db.py (which needs SQLAlchemy) so a light reader can check a store's revision;
tests/model/test_search_retention_schema.py holds it equal to Alembic's head.
"""

HEAD_REVISION = "0009"
