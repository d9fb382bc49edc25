"""A database as schema version 3 (or 6) left it, made from one of today's: what version 4
and version 6 added (tables and columns) taken away, what version 7 dropped (two indexes) put
back, and the version set back, so that a test can open it and see the upgrade in place."""

from __future__ import annotations

import sqlite3
from pathlib import Path

V4_TABLES = ("observer", "game_allowance", "civil_disorder", "bot_turn", "hook", "ledger")
V4_GAME_COLUMNS = ("rules_version", "vacation_days", "max_pause", "max_extensions", "referee_key", "tz")
V6_GAME_COLUMNS = ("dice_walk",)
V4_OUTBOX_COLUMNS = ("claimed_by", "claimed_at")
V6_INDEXES = (
    "CREATE INDEX ix_resolution_game_id ON resolution (game_id)",
    "CREATE INDEX ix_roll_game_id ON roll (game_id)",
)
"""The indexes versions 6 and before had, which repeated the start of their table's
unique index (version 7 drops them)."""


def downgrade_to_6(db: Path) -> None:
    con = sqlite3.connect(db)
    try:
        for statement in V6_INDEXES:
            con.execute(statement)
        con.execute("UPDATE meta SET value = '6' WHERE key = 'schema_version'")
        con.commit()
    finally:
        con.close()


def downgrade_to_3(db: Path) -> None:
    con = sqlite3.connect(db)
    try:
        for table in V4_TABLES:
            con.execute(f"DROP TABLE {table}")
        for column in (*V4_GAME_COLUMNS, *V6_GAME_COLUMNS):
            con.execute(f"ALTER TABLE game DROP COLUMN {column}")
        con.execute("ALTER TABLE player DROP COLUMN tz")
        for statement in V6_INDEXES:
            con.execute(statement)
        for column in V4_OUTBOX_COLUMNS:
            con.execute(f"ALTER TABLE outbox DROP COLUMN {column}")
        con.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")
        con.commit()
    finally:
        con.close()
