import { escapeHtml } from '../../core/escapeHtml';
import type { MailMessage } from '../../mail/mailer';

export interface DeletionWarning {
  to: string;
  appId: string;
  requestedBy: string;
  keysFreezeAt: Date;
  deleteAt: Date;
  /** Cancels the deletion when opened; works once, until `deleteAt`. */
  abortLink: string;
}

/** The warning every admin of an app pending deletion gets: when what happens, and how to stop it. */
export function deletionWarningMessage(warning: DeletionWarning): MailMessage {
  const { appId, requestedBy, abortLink } = warning;
  const freeze = warning.keysFreezeAt.toISOString();
  const deletion = warning.deleteAt.toISOString();
  const subject = `Your app '${appId}' is scheduled for deletion`;
  const lines = [
    `The deletion of the app '${appId}' was requested (by ${requestedBy}).`,
    `Its API keys stop working at ${freeze} (UTC), and all of its data (passkeys, aliases, keys, settings, events) is permanently deleted at ${deletion} (UTC).`,
    'If you did not ask for this, or changed your mind, cancel the deletion with this link (it works once, until the data is deleted):',
  ];
  const text = [...lines.slice(0, 2), '', lines[2], '', abortLink, ''].join('\n');
  const safeLink = escapeHtml(abortLink);
  const html = [
    '<!doctype html>',
    `<html><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head><body>`,
    ...lines.map((line) => `<p>${escapeHtml(line)}</p>`),
    `<p><a href="${safeLink}">${safeLink}</a></p>`,
    '</body></html>',
  ].join('\n');
  return { to: warning.to, subject, text, html };
}
