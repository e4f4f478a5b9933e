import { createSecretKey } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { signStandardWebhook } from './signStandardWebhook';

describe('signStandardWebhook', () => {
  const secret = `whsec_${Buffer.from('a webhook secret of 32 bytes!!!!').toString('base64')}`;
  const key = createSecretKey(Buffer.from(secret.slice('whsec_'.length), 'base64'));

  it('signs exactly as the standardwebhooks package does, and the package verifies it', () => {
    const library = new Webhook(secret);
    for (const [id, at, payload] of [
      ['msg_0001', new Date('2026-11-25T12:00:00.999Z'), '{"type":"user.deleted","data":{"userId":"ü-1"}}'],
      ['msg_0002', new Date(0), ''],
      ['msg_0003', new Date('2030-01-01T00:00:00Z'), 'x'.repeat(10_000)],
    ] as const) {
      expect(signStandardWebhook(key, id, at, payload)).toBe(library.sign(id, at, payload));
    }
    // And a receiver verifies it (the package checks the timestamp against its clock: now).
    const now = new Date();
    const payload = '{"type":"signin.completed","data":{}}';
    const headers = { 'webhook-id': 'msg_now', 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)), 'webhook-signature': signStandardWebhook(key, 'msg_now', now, payload) };
    expect(library.verify(payload, headers)).toEqual(JSON.parse(payload));
  });

  it('differs for another secret, id, second or body', () => {
    const at = new Date('2026-11-25T12:00:00Z');
    const base = signStandardWebhook(key, 'msg_1', at, '{}');
    const other = createSecretKey(Buffer.from('another secret of thirty-two b!!'));
    expect(new Set([base, signStandardWebhook(other, 'msg_1', at, '{}'), signStandardWebhook(key, 'msg_2', at, '{}'), signStandardWebhook(key, 'msg_1', new Date(at.getTime() + 1000), '{}'), signStandardWebhook(key, 'msg_1', at, '{ }')]).size).toBe(5);
  });
});
