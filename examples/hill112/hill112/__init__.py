"""Hill 112: a small two-player wargame for pbem, written as any outside ruleset
would be (RULES.md is its rulebook; docs/rulesets.md in pbem walks through it).

>>> from hill112.ruleset import Hill112
>>> Hill112().sides()
('british', 'germans')
"""
