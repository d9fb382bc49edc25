"""Farrapos (Julio Trois, 2011): the Ragamuffin War, 1835-1845, on a point-to-point
map of Rio Grande do Sul and Santa Catarina.  See ``docs/rules/farrapos.md``.

>>> from pbem.rules.farrapos.ruleset import Farrapos
>>> Farrapos().id
'farrapos'
"""
