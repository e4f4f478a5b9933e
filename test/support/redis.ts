import { randomBytes } from 'node:crypto';
import { createClient } from 'redis';

let warned = false;
/** TEST_REDIS_URL, or undefined after saying loudly (once per file) that the suites needing Redis are skipped. */
export function testRedisUrl(): string | undefined {
  const url = process.env.TEST_REDIS_URL;
  if (!url && !warned) {
    warned = true;
    console.warn('*** TEST_REDIS_URL is not set: the suites that need Redis are SKIPPED ***');
  }
  return url;
}

/** A key prefix of its own for one test run, so parallel runs on one Redis never share counters. */
export const uniqueRedisPrefix = () => `pwltest-${randomBytes(6).toString('hex')}:`;

/** Deletes every key under `prefix` (bounded: at most 100 SCAN pages). */
export async function dropRedisKeys(url: string, prefix: string): Promise<void> {
  const client = createClient({ url });
  await client.connect();
  try {
    let cursor = '0';
    for (let page = 0; page < 100; page++) {
      const reply = await client.scan(cursor, { MATCH: `${prefix}*`, COUNT: 1000 });
      if (reply.keys.length > 0) await client.del(reply.keys);
      cursor = String(reply.cursor);
      if (cursor === '0') break;
    }
  } finally {
    client.destroy();
  }
}
