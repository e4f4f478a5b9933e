import { appendFile, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import nodemailer from 'nodemailer';
import type { Config } from '../core/config';
import type { Mailbox } from '../core/parseMailbox';
import { PRIVATE_FILE_MODE, ensurePrivateDirectory } from '../core/privateFiles';
import { tracingOn } from '../core/telemetry/tracing';
import { withMailSpans } from './withMailSpans';

export interface MailMessage {
  /** A bare address (callers validate it with isBareEmailAddress). */
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface Mailer {
  /** Where mail goes: an SMTP server, or appended to MAIL_FILE. */
  readonly kind: 'smtp' | 'file';
  send(message: MailMessage): Promise<void>;
  /** Resolves when mail could be sent now: the SMTP server answers and accepts us, or MAIL_FILE can be written. */
  check(): Promise<void>;
  close(): void;
}

/** Bounds on how long one send (or health check) may wait for the SMTP server. */
const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

/** Mail through one pooled nodemailer transport to SMTP_URL, created once for the process. */
function smtpMailer(smtpUrl: string, from: Mailbox): Mailer {
  const transport = nodemailer.createTransport({ url: smtpUrl, pool: true, maxConnections: 5, ...SMTP_TIMEOUTS });
  return {
    kind: 'smtp',
    async send(message) {
      // Addresses as objects: nodemailer then takes them as they are instead of parsing a string (which could hold a name or a list).
      await transport.sendMail({ ...message, from: { name: from.name, address: from.address }, to: { name: '', address: message.to } });
    },
    async check() {
      await transport.verify();
    },
    close: () => transport.close(),
  };
}

/** One readable entry per message, appended to MAIL_FILE (development and test setups without SMTP). */
/** `Name <address>`, or the bare address. */
const formatMailbox = ({ name, address }: Mailbox) => (name ? `${name} <${address}>` : address);

function fileMailer(file: string, from: Mailbox): Mailer {
  try {
    ensurePrivateDirectory(dirname(file));
  } catch {
    // Reported by check() and by the first send.
  }
  return {
    kind: 'file',
    async send(message) {
      const entry = [
        '---',
        `Date: ${new Date().toISOString()}`,
        `From: ${formatMailbox(from)}`,
        `To: ${message.to}`,
        `Subject: ${message.subject}`,
        '',
        message.text,
        '',
        '',
      ].join('\n');
      // Created readable by the service's user only: the file holds working sign-in links.
      await appendFile(file, entry, { encoding: 'utf8', mode: PRIVATE_FILE_MODE });
    },
    async check() {
      // Opening for append is what a send does; root passes any permission check, so only trying proves it.
      await (await open(file, 'a', PRIVATE_FILE_MODE)).close();
    },
    close: () => undefined,
  };
}

export function createMailer(config: Pick<Config, 'smtpUrl' | 'mailFrom' | 'mailFile'>): Mailer {
  const mailer = config.smtpUrl === undefined ? fileMailer(config.mailFile, config.mailFrom) : smtpMailer(config.smtpUrl, config.mailFrom);
  return tracingOn() ? withMailSpans(mailer) : mailer;
}
