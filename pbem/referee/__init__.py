"""The referee: judging turn files, intake, resolution, a game's life (new,
extend, rollback, status), deadlines and notices, the mail room, and the
service (``tick``, ``serve``) with its workers.
"""
