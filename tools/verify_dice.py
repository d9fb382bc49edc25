#!/usr/bin/env python3
"""Check the dice of a pbem game archive without pbem (dice v1, docs/dice.md).

    python3 verify_dice.py ARCHIVE.json [ANCHOR_HEX]

The dice do not depend on a game's house tables (``game.tables``): the summary
names them with their SHA-256; ``pbem audit`` replays the rules with them.
Give ANCHOR_HEX, the anchor you were sent when the game began, so that a referee
cannot have swapped the whole chain.  Exit 0 with a summary when the reveal chain
and every roll hold; exit 1 naming the first discrepancy.  Standard library only."""

import hashlib, hmac, json, sys


def H(b):
    return hashlib.sha256(b).digest()


def enc(b):
    return len(b).to_bytes(4, "big") + b


def verify(archive, anchor=None):
    dice = archive["dice"]
    if archive.get("format") != "pbem-archive/1" or dice.get("version") != 1:
        raise ValueError(
            f"not a dice v1 pbem-archive/1: format {archive.get('format')!r}, dice version {dice.get('version')!r}"
        )
    if anchor is not None and anchor.lower() != dice["anchor"]:
        raise ValueError(f"anchor: expected {anchor.lower()}, found {dice['anchor']}")
    resolutions = archive["resolutions"] + [r for s in archive.get("set_aside", []) for r in s["resolutions"]]
    chains = [(1, dice["chain_length"], dice["anchor"])]  # (first k, length N, anchor); extensions follow
    for ext in dice.get("extensions", []):
        if ext["first_k"] != chains[-1][0] + chains[-1][1] - 1:
            raise ValueError(
                f"dice extension from {ext['first_k']}: expected it to start at {chains[-1][0] + chains[-1][1] - 1}"
            )
        chains.append((ext["first_k"], ext["chain_length"], ext["anchor"]))
    previous, rolls = None, 0
    for k, res in enumerate(sorted(resolutions, key=lambda r: r["k"]), start=1):
        first, n, chain_anchor = [c for c in chains if c[0] <= k][-1]
        if res["k"] != k or k > first + n - 2:
            raise ValueError(f"resolution {k}: expected next in the chain (up to {first + n - 2}), found k={res['k']}")
        previous = bytes.fromhex(chain_anchor) if k == first else previous
        reveal = bytes.fromhex(res["reveal"])
        if H(reveal) != previous:
            raise ValueError(
                f"resolution {k}: reveal {res['reveal']} does not hash to {previous.hex()} (found {H(reveal).hex()})"
            )
        files = [enc(H(s["turn_file"].encode("utf-8"))) for s in sorted(res["submissions"], key=lambda s: s["side"])]
        key = hmac.new(
            reveal,
            enc(b"pbem-dice-v1") + enc(archive["game"]["id"].encode("utf-8")) + enc(str(k).encode()) + b"".join(files),
            hashlib.sha256,
        ).digest()
        stream = (b for block in range(2**64) for b in hmac.new(key, block.to_bytes(8, "big"), hashlib.sha256).digest())
        for index, roll in enumerate(res["rolls"]):
            n = roll["sides"]
            if roll["index"] != index or not 2 <= n <= 256:
                raise ValueError(
                    f"resolution {k}, roll {index}: expected index {index} of a d2..d256, found index "
                    f"{roll['index']} of a d{n}"
                )
            b = next(stream)
            while b >= 256 - 256 % n:
                b = next(stream)
            if roll["value"] != b % n + 1:
                raise ValueError(
                    f"resolution {k}, roll {index} (d{n}, {roll['purpose']}): expected {b % n + 1}, found "
                    f"{roll['value']}"
                )
        previous, rolls = reveal, rolls + len(res["rolls"])
    tables = archive["game"].get("tables") or {}  # house tables: they change results, never the dice
    played = (
        "; house tables: "
        + ", ".join(
            f"{n} (sha256 "
            f"{H(json.dumps(t, sort_keys=True, separators=(',', ':'), ensure_ascii=False).encode('utf-8')).hex()})"
            for n, t in sorted(tables.items())
        )
        if tables
        else ""
    )
    return (
        f"dice verified: {len(resolutions)} resolutions ({len(resolutions) - len(archive['resolutions'])} set "
        f"aside), {rolls} rolls, anchor {dice['anchor']}{played}"
    )


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    try:
        with open(sys.argv[1], encoding="utf-8") as f:
            print(verify(json.load(f), *sys.argv[2:]))
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"{sys.argv[1]}: {'missing field ' if isinstance(e, KeyError) else ''}{e}", file=sys.stderr)
        sys.exit(1)
