// A real SMTP server for tests, run as a child process (test/support/smtp.ts starts it).
// Listens on 127.0.0.1 (SMTP_PORT, default a free port), prints {"listening": port} once, then one
// JSON line per message received: envelope, subject and both parts as parsed by mailparser.
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

const server = new SMTPServer({
  // Plain SMTP on loopback: no TLS upgrade to negotiate, no login to check.
  disabledCommands: ['STARTTLS', 'AUTH'],
  logger: false,
  disableReverseLookup: true,
  onData(stream, session, callback) {
    simpleParser(stream).then(
      (mail) => {
        const line = {
          from: session.envelope.mailFrom && session.envelope.mailFrom.address,
          to: session.envelope.rcptTo.map((r) => r.address),
          // The headers as written: who the message says it is from and to.
          headerFrom: mail.from ? mail.from.value : [],
          headerTo: mail.to ? [].concat(mail.to).flatMap((t) => t.value) : [],
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
        };
        process.stdout.write(`${JSON.stringify(line)}\n`);
        callback();
      },
      (error) => callback(error),
    );
  },
});

server.listen(Number(process.env.SMTP_PORT || 0), '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ listening: server.server.address().port })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
