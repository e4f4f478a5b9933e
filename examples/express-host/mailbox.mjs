// A development-only mailbox: the service writes mail to its MAIL_FILE when no SMTP server is
// configured; this page lists the messages with their links, so the sign-up and recovery mails of
// the example can be opened in the browser. Never mounted in production.
import { existsSync, readFileSync } from 'node:fs';

const escapeHtml = (text) => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);

/** The messages of MAIL_FILE (entries start with a `---` line), newest first, with the links in each. */
function messages(file) {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split(/^---$/m)
    .filter((entry) => entry.trim())
    .map((entry) => ({
      to: /^To: (.+)$/m.exec(entry)?.[1]?.trim() ?? '',
      subject: /^Subject: (.+)$/m.exec(entry)?.[1]?.trim() ?? '',
      links: [...new Set(entry.match(/https?:\/\/[^\s)>"\]]+/g) ?? [])],
    }))
    .reverse();
}

/** `GET /dev/mailbox`: the example's outbox as a page, each link marked `mail-link`. */
export function mailboxRoute(mailFile) {
  return (_req, res) => {
    const items = messages(mailFile)
      .map(
        (m) =>
          `<li><div><strong>${escapeHtml(m.subject)}</strong> to ${escapeHtml(m.to)}</div>${m.links
            .map((link) => `<a data-test="mail-link" href="${escapeHtml(link)}">${escapeHtml(link.length > 90 ? `${link.slice(0, 90)}…` : link)}</a>`)
            .join('<br>')}</li>`,
      )
      .join('');
    res.set('Cache-Control', 'no-store').type('html').send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Mailbox (development)</title><link rel="stylesheet" href="/style.css"></head>` +
        `<body><main><h1>Mailbox</h1><p>What the service mailed (development only).</p><ul class="passkeys">${items || '<li>No mail yet.</li>'}</ul><p><a href="/">Back</a></p></main></body></html>`,
    );
  };
}
