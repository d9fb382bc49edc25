"""Helpers shared by the tests (no tests here): fixtures, desks, servers, report data."""
