import { inSpan } from '../core/telemetry/tracing';
import type { Mailer } from './mailer';

/** The mailer with a `mail send` span per message: where it went (smtp or file), never the address, subject or text. */
export function withMailSpans(mailer: Mailer): Mailer {
  return {
    get kind() {
      return mailer.kind;
    },
    send: (message) => inSpan('mail send', () => mailer.send(message), { attributes: () => ({ 'passwordless.mail.transport': mailer.kind }) }),
    check: () => mailer.check(),
    close: () => mailer.close(),
  };
}
