"""The SQLite schema as SQL text: what ``pbem new`` runs to create a database file
without SQLAlchemy.

A new SQLite file is the one database ``pbem`` creates itself (store.create_database):
these are the ``CREATE TABLE`` and ``CREATE INDEX`` statements SQLAlchemy emits for
the SQLModel tables of :mod:`pbem.store.orm` on SQLite, character for character, so a
file made either way is the same (``sqlite_master`` included).  The tables stay
defined once, in :mod:`pbem.store.orm`: tests/test_schema.py compares this text with what
the ORM's metadata emits, so the two cannot drift apart; change a table there and
that test prints the statement to put here.  Any other database (``--db
postgresql://...``) is created by SQLAlchemy from the metadata, as before.
"""

from __future__ import annotations


def _table(name: str, *columns: str) -> str:
    """A ``CREATE TABLE`` laid out as SQLAlchemy lays it out."""
    return f"\nCREATE TABLE {name} (\n\t" + ", \n\t".join(columns) + "\n)\n\n"


SQLITE: tuple[str, ...] = (
    _table("meta", '"key" VARCHAR NOT NULL', "value VARCHAR NOT NULL", 'PRIMARY KEY ("key")'),
    _table(
        "game", "id VARCHAR NOT NULL", "rules VARCHAR NOT NULL", "scenario VARCHAR NOT NULL",
        "options VARCHAR NOT NULL", "created DATETIME NOT NULL", "seed VARCHAR NOT NULL",
        "seed_checkpoints VARCHAR NOT NULL", "chain_length INTEGER NOT NULL", "anchor VARCHAR NOT NULL",
        "initial_position VARCHAR NOT NULL", "initial_state_hash VARCHAR NOT NULL", "current_k INTEGER NOT NULL",
        "next_k INTEGER NOT NULL", "state_hash VARCHAR NOT NULL", "over BOOLEAN NOT NULL", "result VARCHAR",
        "PRIMARY KEY (id)",
    ),
    _table(
        "refusal", "id INTEGER NOT NULL", "game_id VARCHAR", "side VARCHAR", "turn INTEGER", "data BLOB NOT NULL",
        "signature VARCHAR", "reason VARCHAR NOT NULL", "received DATETIME NOT NULL", "source VARCHAR NOT NULL",
        "PRIMARY KEY (id)",
    ),
    "CREATE INDEX ix_refusal_game_id ON refusal (game_id)",
    _table(
        "outbox", "id INTEGER NOT NULL", "kind VARCHAR NOT NULL", "game_id VARCHAR", "side VARCHAR", "k INTEGER",
        '"to" VARCHAR NOT NULL', "subject VARCHAR NOT NULL", "message_id VARCHAR NOT NULL",
        "dedupe VARCHAR NOT NULL", "body BLOB", "state VARCHAR NOT NULL", "attempts INTEGER NOT NULL",
        "last_error VARCHAR", "next_attempt DATETIME NOT NULL", "created DATETIME NOT NULL", "sent DATETIME",
        "PRIMARY KEY (id)", "UNIQUE (dedupe)",
    ),
    "CREATE INDEX ix_outbox_game_id ON outbox (game_id)",
    "CREATE INDEX ix_outbox_state ON outbox (state)",
    _table(
        "intake", "id INTEGER NOT NULL", "source VARCHAR NOT NULL", "item VARCHAR NOT NULL", "uidvalidity INTEGER",
        "uid INTEGER", "digest VARCHAR NOT NULL", "message_id VARCHAR", "verdict VARCHAR NOT NULL",
        "lines VARCHAR NOT NULL", "at DATETIME NOT NULL", "PRIMARY KEY (id)", "UNIQUE (digest)",
    ),
    "CREATE INDEX ix_intake_message_id ON intake (message_id)",
    "CREATE INDEX ix_intake_source ON intake (source)",
    _table(
        "intake_part", "id INTEGER NOT NULL", "digest VARCHAR NOT NULL", "part VARCHAR NOT NULL",
        "accepted BOOLEAN NOT NULL", "lines VARCHAR NOT NULL", "game_id VARCHAR", "side VARCHAR", "PRIMARY KEY (id)",
        "UNIQUE (digest, part)",
    ),
    _table(
        "player", "id INTEGER NOT NULL", "game_id VARCHAR NOT NULL", "side VARCHAR NOT NULL",
        "public_key VARCHAR NOT NULL", "email VARCHAR", "PRIMARY KEY (id)", "UNIQUE (game_id, side)",
        "FOREIGN KEY(game_id) REFERENCES game (id)",
    ),
    "CREATE INDEX ix_player_game_id ON player (game_id)",
    _table(
        "resolution", "id INTEGER NOT NULL", "game_id VARCHAR NOT NULL", "k INTEGER NOT NULL",
        "label VARCHAR NOT NULL", "position VARCHAR NOT NULL", "state_hash VARCHAR NOT NULL",
        "previous_state_hash VARCHAR NOT NULL", "events VARCHAR NOT NULL", "reveal VARCHAR NOT NULL",
        "nmr VARCHAR NOT NULL", "created DATETIME NOT NULL", "active BOOLEAN NOT NULL", "rollback_id INTEGER",
        "PRIMARY KEY (id)", "UNIQUE (game_id, k)", "FOREIGN KEY(game_id) REFERENCES game (id)",
    ),
    "CREATE INDEX ix_resolution_game_id ON resolution (game_id)",
    _table(
        "submission", "id INTEGER NOT NULL", "game_id VARCHAR NOT NULL", "side VARCHAR NOT NULL",
        "turn INTEGER NOT NULL", "message BLOB NOT NULL", "signature VARCHAR NOT NULL", "digest VARCHAR NOT NULL",
        "received DATETIME NOT NULL", "status VARCHAR(10) NOT NULL", "source VARCHAR NOT NULL", "PRIMARY KEY (id)",
        "FOREIGN KEY(game_id) REFERENCES game (id)",
    ),
    "CREATE INDEX ix_submission_digest ON submission (digest)",
    "CREATE INDEX ix_submission_game_id ON submission (game_id)",
    _table(
        "roll", "id INTEGER NOT NULL", "game_id VARCHAR NOT NULL", "k INTEGER NOT NULL", "idx INTEGER NOT NULL",
        "sides INTEGER NOT NULL", "value INTEGER NOT NULL", "purpose VARCHAR NOT NULL", "PRIMARY KEY (id)",
        "UNIQUE (game_id, k, idx)", "FOREIGN KEY(game_id) REFERENCES game (id)",
    ),
    "CREATE INDEX ix_roll_game_id ON roll (game_id)",
    _table(
        "dice_chain", "id INTEGER NOT NULL", "game_id VARCHAR NOT NULL", "first_k INTEGER NOT NULL",
        "chain_length INTEGER NOT NULL", "anchor VARCHAR NOT NULL", "seed VARCHAR NOT NULL",
        "seed_checkpoints VARCHAR NOT NULL", "created DATETIME NOT NULL", "PRIMARY KEY (id)",
        "UNIQUE (game_id, first_k)", "FOREIGN KEY(game_id) REFERENCES game (id)",
    ),
    "CREATE INDEX ix_dice_chain_game_id ON dice_chain (game_id)",
    _table(
        '"rollback"', "id INTEGER NOT NULL", "game_id VARCHAR NOT NULL", "to_k INTEGER NOT NULL",
        "at DATETIME NOT NULL", "discarded VARCHAR NOT NULL", "PRIMARY KEY (id)",
        "FOREIGN KEY(game_id) REFERENCES game (id)",
    ),
    'CREATE INDEX ix_rollback_game_id ON "rollback" (game_id)',
    _table(
        "site", "game_id VARCHAR NOT NULL", "url VARCHAR NOT NULL", "updated DATETIME NOT NULL",
        "PRIMARY KEY (game_id)", "FOREIGN KEY(game_id) REFERENCES game (id)",
    ),
    _table(
        "game_clock", "game_id VARCHAR NOT NULL", "deadline INTEGER", "grace INTEGER NOT NULL",
        "remind INTEGER NOT NULL", "wait BOOLEAN NOT NULL", "PRIMARY KEY (game_id)",
        "FOREIGN KEY(game_id) REFERENCES game (id)",
    ),
    _table(
        "late_turn", "id INTEGER NOT NULL", "game_id VARCHAR NOT NULL", "k INTEGER NOT NULL",
        "deadline DATETIME NOT NULL", "grace_until DATETIME NOT NULL", "resolved_at DATETIME NOT NULL",
        "sides VARCHAR NOT NULL", "PRIMARY KEY (id)", "UNIQUE (game_id, k)",
        "FOREIGN KEY(game_id) REFERENCES game (id)",
    ),
    "CREATE INDEX ix_late_turn_game_id ON late_turn (game_id)",
    _table(
        "player_change", "id INTEGER NOT NULL", "game_id VARCHAR NOT NULL", "side VARCHAR NOT NULL",
        "from_k INTEGER NOT NULL", "at DATETIME NOT NULL", "email VARCHAR", "previous_email VARCHAR",
        "public_key VARCHAR", "previous_public_key VARCHAR", "PRIMARY KEY (id)",
        "FOREIGN KEY(game_id) REFERENCES game (id)",
    ),
    "CREATE INDEX ix_player_change_game_id ON player_change (game_id)",
    _table(
        "house_table", "id INTEGER NOT NULL", "game_id VARCHAR NOT NULL", "name VARCHAR NOT NULL",
        "data VARCHAR NOT NULL", "digest VARCHAR NOT NULL", "PRIMARY KEY (id)", "UNIQUE (game_id, name)",
        "FOREIGN KEY(game_id) REFERENCES game (id)",
    ),
    "CREATE INDEX ix_house_table_game_id ON house_table (game_id)",
)
"""Every statement, each table before its indexes and after the tables it refers to."""
