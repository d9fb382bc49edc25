"""Rule cases: one rules situation as a TOML file (docs/formats.md, "Rule cases").

A case gives a ruleset, a compact position, each side's orders, scripted dice,
and what must follow: the problems a refusal names, or events and position
fields.  ``pbem case FILE...`` and ``tests/test_cases.py`` run them; this is how
rules bugs are reported and fixed.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pbem.rules import find_ruleset
from pbem.rules.base import NO_ORDERS, Orders, Problem
from pbem.rules.dice import DiceExhausted, ScriptedDice


class CaseFileError(ValueError):
    """The case file itself is malformed."""


@dataclass
class CaseResult:
    path: str
    name: str
    section: str
    passed: bool
    diff: list[str] = field(default_factory=list)

    def summary(self) -> str:
        head = f"{'PASS' if self.passed else 'FAIL'} {self.path}: {self.name}"
        return head if self.passed else head + "\n" + "\n".join(f"    {line}" for line in self.diff)


def load_case(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise CaseFileError(f"{path}: {exc}") from None
    for key in ("name", "rules"):
        if key not in data:
            raise CaseFileError(f"{path}: missing top-level key {key!r}")
    return data


def run_case_file(path: str | Path) -> CaseResult:
    path = Path(path)
    try:
        data = load_case(path)
    except CaseFileError as exc:
        return CaseResult(str(path), path.stem, "", False, [str(exc)])
    return run_case(data, str(path))


def run_case(data: Mapping[str, Any], where: str = "<case>") -> CaseResult:
    result = CaseResult(where, str(data.get("name", "")), str(data.get("section", "")), True)
    diff = result.diff
    try:
        ruleset = find_ruleset(str(data["rules"]))
        scenario = data.get("scenario")
        options = list(data.get("options", []))
        position = ruleset.position_from_case(data.get("position", {}), scenario, options)
        if data.get("tables"):  # house tables, in the form `pbem table` prints (docs/formats.md)
            position = ruleset.with_house_tables(position, dict(data["tables"]))
    except (ValueError, KeyError, TypeError) as exc:
        return CaseResult(
            where, result.name, result.section, False, [f"cannot build the position: {type(exc).__name__}: {exc}"]
        )
    expect = data.get("expect", {})
    problems_by_side: dict[str, list[Problem]] = {}
    orders: dict[str, Orders] = {side: NO_ORDERS for side in ruleset.due(position)}
    for side, text in dict(data.get("orders", {})).items():
        parsed, problems = ruleset.parse_orders(str(text))
        if not problems:
            problems = ruleset.validate(position, side, parsed)
        problems_by_side[side] = problems
        orders[side] = parsed
    expected_problems = list(expect.get("problems", []))
    found_problems = [(side, p) for side, ps in problems_by_side.items() for p in ps]
    if expected_problems or found_problems:
        for want in expected_problems:
            if not any(_problem_matches(want, side, p) for side, p in found_problems):
                diff.append(f"expected problem {dict(want)} not reported")
        if not expected_problems:
            diff.extend(f"unexpected problem ({side}): {p}" for side, p in found_problems)
        if diff:
            diff.extend(f"  reported ({side}): {p}" for side, p in found_problems)
        result.passed = not diff
        return result
    dice = ScriptedDice((int(d["value"]), d.get("sides"), d.get("purpose")) for d in data.get("dice", []))
    try:
        resolution = ruleset.resolve(position, orders, dice)
    except (DiceExhausted, AssertionError) as exc:
        return CaseResult(
            where,
            result.name,
            result.section,
            False,
            [str(exc), *(f"  rolled {r.index}: d{r.sides}={r.value} {r.purpose}" for r in dice.rolls)],
        )
    if dice.unused and expect.get("all_dice_used", True):
        diff.append(
            f"{dice.unused} scripted dice were not used (rolled: "
            f"{[f'd{r.sides}={r.value} {r.purpose}' for r in dice.rolls]})"
        )
    _match_events(list(expect.get("events", [])), resolution.events, diff)
    if "position" in expect:
        actual = ruleset.position_to_case(resolution.position)
        _match_subset(expect["position"], actual, "position", diff)
    if "outcome" in expect:
        outcome = ruleset.outcome(resolution.position)
        _match_subset(expect["outcome"], outcome.to_json() if outcome else {"kind": None}, "outcome", diff)
    result.passed = not diff
    return result


def _problem_matches(want: Mapping[str, Any], side: str, problem: Problem) -> bool:
    if "side" in want and want["side"] != side:
        return False
    if "line" in want and int(want["line"]) != problem.line:
        return False
    return str(want.get("contains", "")).lower() in problem.message.lower()


def _event_matches(want: Mapping[str, Any], event: Mapping[str, Any]) -> bool:
    for key, value in want.items():
        if key == "text_contains":
            if str(value).lower() not in str(event.get("text", "")).lower():
                return False
        elif key not in event or not _subset(value, event[key]):
            return False
    return True


def _match_events(expected: list[Mapping[str, Any]], actual: list[dict[str, Any]], diff: list[str]) -> None:
    start = 0
    for want in expected:
        for i in range(start, len(actual)):
            if _event_matches(want, actual[i]):
                start = i + 1
                break
        else:
            diff.append(f"expected event {dict(want)} not found (in order) among:")
            diff.extend(f"    {e.get('type')}: {e.get('text')}" for e in actual[start:])
            return


def _subset(want: Any, got: Any) -> bool:
    if isinstance(want, Mapping):
        return isinstance(got, Mapping) and all(k in got and _subset(v, got[k]) for k, v in want.items())
    return want == got


def _match_subset(want: Any, got: Any, where: str, diff: list[str]) -> None:
    if isinstance(want, Mapping):
        if not isinstance(got, Mapping):
            diff.append(f"{where}: expected a table, found {got!r}")
            return
        for key, value in want.items():
            if key not in got:
                diff.append(f"{where}.{key}: missing (expected {value!r})")
            else:
                _match_subset(value, got[key], f"{where}.{key}", diff)
    elif want != got:
        diff.append(f"{where}: expected {want!r}, found {got!r}")


def run_cases(paths: list[Path]) -> list[CaseResult]:
    files: list[Path] = []
    for path in paths:
        files.extend(sorted(path.rglob("*.toml")) if path.is_dir() else [path])
    return [run_case_file(p) for p in files]
