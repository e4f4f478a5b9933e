import { escapeHtml } from '../../core/escapeHtml';
import { humanizeSeconds } from '../tokens/tokenService';
import type { MailMessage } from '../../mail/mailer';

/** The magic-link email: a plain-text and an HTML part, both carrying the link. */
export function magicLinkMessage(to: string, link: string, timeToLiveSeconds: number): MailMessage {
  const host = new URL(link).host;
  const lifetime = humanizeSeconds(timeToLiveSeconds);
  const subject = `Sign in to ${host}`;
  const text = [
    `Use this link to sign in to ${host}:`,
    '',
    link,
    '',
    `The link works for ${lifetime}. If you did not ask to sign in, you can ignore this email.`,
  ].join('\n');
  const safeLink = escapeHtml(link);
  const html = [
    '<!doctype html>',
    `<html><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head><body>`,
    `<p>Use this link to sign in to ${escapeHtml(host)}:</p>`,
    `<p><a href="${safeLink}">${safeLink}</a></p>`,
    `<p>The link works for ${escapeHtml(lifetime)}. If you did not ask to sign in, you can ignore this email.</p>`,
    '</body></html>',
  ].join('\n');
  return { to, subject, text, html };
}
