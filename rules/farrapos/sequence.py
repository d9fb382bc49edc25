"""Turn sequence (rulebook, "Turn Sequence"): 11 Phases, 1835 to 1845, of 4 turns;
the Republic ALWAYS plays first: turn 1 Republic, 2 Empire, 3 Republic, 4 Empire.

>>> turn_side(1), turn_side(2)
('republic', 'empire')
>>> next_turn(1835, 4)
(1836, 1)
>>> label(1837, 3)
'1837, turn 3 (Republic)'
"""

from __future__ import annotations

from pbem.rules.farrapos.counters import FIRST_PHASE, LAST_PHASE, SIDE_NAMES

TURNS_PER_PHASE = 4


def turn_side(turn: int) -> str:
    if not 1 <= turn <= TURNS_PER_PHASE:
        raise ValueError(f"turn {turn} is not 1..{TURNS_PER_PHASE}")
    return "republic" if turn % 2 == 1 else "empire"


def phase_number(phase: int) -> int:
    """1835 is Phase 1, 1845 Phase 11."""
    return phase - FIRST_PHASE + 1


def next_turn(phase: int, turn: int) -> tuple[int, int]:
    if turn < TURNS_PER_PHASE:
        return phase, turn + 1
    return phase + 1, 1


def is_last_turn(phase: int, turn: int) -> bool:
    return phase == LAST_PHASE and turn == TURNS_PER_PHASE


def label(phase: int, turn: int) -> str:
    return f"{phase}, turn {turn} ({SIDE_NAMES[turn_side(turn)]})"
