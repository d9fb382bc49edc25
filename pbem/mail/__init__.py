"""Mail as transport: reading what arrives and delivering what the referee owes.

- :mod:`pbem.mail.intake`: what one raw message holds (its turn files, sender, date);
- :mod:`pbem.mail.readers`: Maildir, mbox and directory readers and the intake loop;
- :mod:`pbem.mail.imap`: an IMAP mailbox (IMAPS or STARTTLS, UIDs with UIDVALIDITY);
- :mod:`pbem.mail.smtp`: SMTP (plain, STARTTLS, SSL; optional login);
- :mod:`pbem.mail.build`: the referee's own messages (receipts, refusals, notices);
- :mod:`pbem.mail.address`: checking an address given to ``pbem new --email``;
- :mod:`pbem.mail.outbox`: the durable outbox in the store and its delivery.

The readers bound to the real store (``ingest``, ``tick``) are the referee's mail
room (:mod:`pbem.referee.service.mail_room`); a report's message is
:mod:`pbem.reports.message`.
"""
