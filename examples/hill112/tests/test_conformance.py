"""What pbem relies on a ruleset for, checked by pbem's own suite (its pytest
plug-in gives the ``ruleset_conformance`` fixture); the rule cases in
hill112/cases run as part of it."""


def test_hill_112_conforms(ruleset_conformance) -> None:  # type: ignore[no-untyped-def]
    ruleset_conformance("hill-112", games=5)
