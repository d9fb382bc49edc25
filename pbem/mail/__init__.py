"""Everything the referee does by mail, in one package.

- :mod:`pbem.mail.intake`: what one raw message holds (its turn files, sender, date);
- :mod:`pbem.mail.readers`: Maildir, mbox and directory readers and the intake loop;
- :mod:`pbem.mail.imap`: an IMAP mailbox (IMAPS or STARTTLS, UIDs with UIDVALIDITY);
- :mod:`pbem.mail.build`: the messages the referee writes (reports, receipts, notices);
- :mod:`pbem.mail.address`: checking an address given to ``pbem new --email``;
- :mod:`pbem.mail.outbox`: the durable outbox in the store and its delivery;
- :mod:`pbem.mail.smtp`: SMTP (plain, STARTTLS, SSL; optional login);
- :mod:`pbem.mail.room`: the readers bound to the real store (``ingest``, ``tick``).
"""
