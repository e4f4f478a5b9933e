// A development-only mailbox: the service writes mail to its MAIL_FILE when no SMTP server is
// configured, and the host writes its own (passkey added or removed) to another file; this page
// lists the messages of both with their links, so the sign-up, recovery and notice mails of the
// example can be opened in the browser. Never mounted in production.
import { existsSync, readFileSync } from 'node:fs';

const escapeHtml = (text) => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);

/** The messages of a mail file (entries start with a `---` line), with the links in each. */
function messages(file) {
  if (!file || !existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split(/^---$/m)
    .filter((entry) => entry.trim())
    .map((entry, index) => ({
      at: Date.parse(/^Date: (.+)$/m.exec(entry)?.[1] ?? '') || 0,
      index,
      to: /^To: (.+)$/m.exec(entry)?.[1]?.trim() ?? '',
      subject: /^Subject: (.+)$/m.exec(entry)?.[1]?.trim() ?? '',
      links: [...new Set(entry.match(/https?:\/\/[^\s)>"\]]+/g) ?? [])],
    }));
}

/** `GET /dev/mailbox`: the example's outboxes as one page, newest first, each link marked `mail-link`. */
export function mailboxRoute(...mailFiles) {
  return (_req, res) => {
    const all = mailFiles.flatMap(messages).sort((a, b) => b.at - a.at || b.index - a.index);
    const items = all
      .map(
        (m) =>
          `<li><div><strong>${escapeHtml(m.subject)}</strong> to ${escapeHtml(m.to)}</div>${m.links
            .map((link) => `<a data-test="mail-link" href="${escapeHtml(link)}">${escapeHtml(link.length > 90 ? `${link.slice(0, 90)}…` : link)}</a>`)
            .join('<br>')}</li>`,
      )
      .join('');
    res.set('Cache-Control', 'no-store').type('html').send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Mailbox (development)</title><link rel="stylesheet" href="/style.css"></head>` +
        `<body><main><h1>Mailbox</h1><p>What the service and this host mailed (development only).</p><ul class="passkeys">${items || '<li>No mail yet.</li>'}</ul><p><a href="/">Back</a></p></main></body></html>`,
    );
  };
}
