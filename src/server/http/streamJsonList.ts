import type { Response } from 'express';

/** Resolves once the socket took what was written, or is gone. */
const drained = (res: Response) =>
  new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });

/**
 * Answers a JSON array whose items arrive a page at a time, holding one page at most: each page is
 * written as it comes, and the next is read only once the socket took the last. `before` and
 * `after` wrap the array (`{"values":` and `}`). The first page is read before anything is sent, so
 * that a failure there is still a problem answer; a later failure cuts the connection, so that a
 * client never takes a cut-off list for a whole one. A client that leaves stops the reading.
 */
export async function streamJsonList(res: Response, pages: AsyncIterator<unknown[]>, wrap: { before: string; after: string } = { before: '', after: '' }): Promise<void> {
  let page = await pages.next();
  res.status(200).type('application/json');
  try {
    let text = `${wrap.before}[`;
    let first = true;
    while (!page.done) {
      for (const item of page.value) {
        text += (first ? '' : ',') + JSON.stringify(item);
        first = false;
      }
      if (!res.write(text)) await drained(res);
      text = '';
      if (res.destroyed) {
        await pages.return?.(undefined);
        return;
      }
      page = await pages.next();
    }
    res.end(`${text}]${wrap.after}`);
  } catch (error) {
    res.destroy();
    throw error;
  }
}
