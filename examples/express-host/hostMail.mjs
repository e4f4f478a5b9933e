// The host's own mail: what it tells its users about their passkeys ("a passkey was added to your
// account"). A demo writes it to a file that the development mailbox shows beside the service's
// mail, in the same format; a real host would send it with nodemailer through its SMTP server.
import { appendFile } from 'node:fs/promises';

/** A mailer that appends each message to `file` (readable by this user only: it names the user's devices). */
export function fileMailer(file) {
  return {
    async send({ to, subject, text }) {
      const entry = ['---', `Date: ${new Date().toISOString()}`, 'From: Example host <noreply@localhost>', `To: ${to}`, `Subject: ${subject}`, '', text, '', ''].join('\n');
      await appendFile(file, entry, { encoding: 'utf8', mode: 0o600 });
    },
  };
}

const described = (passkey) => `${passkey.name ? `"${passkey.name}"` : 'A passkey'}${passkey.device ? ` (${passkey.device})` : ''}`;

/** The middleware's hooks that mail the user of every passkey added to or deleted from their account. */
export function passkeyMails(mailer, siteName) {
  return {
    onPasskeyAdded: async ({ user, passkey, via }) => {
      if (via !== 'add') return; // the sign-up's own passkey: the user is looking at it
      await mailer.send({
        to: user.email,
        subject: `A passkey was added to your ${siteName} account`,
        text: `${described(passkey)} can now sign in to your account.\n\nIf this was not you, sign in with one of your other passkeys, delete it and sign out everywhere.`,
      });
    },
    onPasskeyDeleted: async ({ user, passkey }) => {
      await mailer.send({
        to: user.email,
        subject: `A passkey was removed from your ${siteName} account`,
        text: `${described(passkey)} can no longer sign in to your account.\n\nIf this was not you, recover your account by email at once.`,
      });
    },
  };
}
