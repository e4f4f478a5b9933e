import type { Request } from 'express';

export interface Notice {
  kind: 'ok' | 'error';
  text: string;
}

interface NoticeSession {
  consoleNotice?: Notice;
}

/** Keeps a one-line outcome for the page the browser is sent to next (never a secret: secrets are shown in the answer itself). */
export function setNotice(req: Request, notice: Notice): void {
  const session = (req as Request & { session?: NoticeSession }).session;
  if (session) session.consoleNotice = notice;
}

/** The outcome kept for this page, once. */
export function takeNotice(req: Request): Notice | undefined {
  const session = (req as Request & { session?: NoticeSession }).session;
  const notice = session?.consoleNotice;
  if (session && notice) delete session.consoleNotice;
  return notice;
}
