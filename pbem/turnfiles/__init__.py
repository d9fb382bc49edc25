"""What a player sends and holds: the turn file's envelope, its SSHSIG signature,
OpenSSH keys, the position file mailed with each report, and canonical JSON.
"""
