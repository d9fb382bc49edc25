"""Reports: what they read of the store, one side's report data, the Jinja
rendering (HTML, text), a report as an e-mail message, charts and battle tables,
and the per-user cache of compiled templates.
"""
