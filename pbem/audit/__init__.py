"""What an auditor and the public read: the archive (version 1), the audit that
re-verifies a whole game from it, and the game's publishable site.
"""
