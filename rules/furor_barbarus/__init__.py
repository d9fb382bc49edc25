"""Furor Barbarus ("A la charge" system): hex-and-counter tactical battles, 451-507 AD.

The engine is pure; see ``docs/rules/furor-barbarus.md`` for every reading chosen.
"""
