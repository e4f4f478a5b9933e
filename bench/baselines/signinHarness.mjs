// B3: the bare sign-in stack. Express + SimpleWebAuthn + better-sqlite3 + an HMAC token: begin
// inserts a challenge; complete consumes it (DELETE ... RETURNING), reads the credential, verifies
// with SimpleWebAuthn, updates the counter conditionally and returns an HMAC-signed token. No keys,
// tenants, sessions, events or logging. better-sqlite3's defaults in WAL mode (synchronous NORMAL:
// no fsync per commit), which the service does not allow itself, so the ratio errs against it.
import { createHmac, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { verifyAuthenticationResponse } from '@simplewebauthn/server';
import Database from 'better-sqlite3';
import express from 'express';

const RPID = 'localhost';
const ORIGIN = 'https://localhost';
const TOKEN_KEY = randomBytes(32);

const db = new Database(process.env.HARNESS_DB);
db.pragma('journal_mode = WAL');
db.exec(`CREATE TABLE IF NOT EXISTS challenge (id TEXT PRIMARY KEY, expiresAt INTEGER NOT NULL);
         CREATE TABLE IF NOT EXISTS credential (id TEXT PRIMARY KEY, userId TEXT NOT NULL, publicKey TEXT NOT NULL, counter INTEGER NOT NULL)`);
const seed = db.prepare('INSERT OR REPLACE INTO credential (id, userId, publicKey, counter) VALUES (?, ?, ?, 0)');
db.transaction(() => {
  for (const c of JSON.parse(readFileSync(process.env.HARNESS_CREDENTIALS, 'utf8'))) seed.run(c.descriptorId, c.userId, c.publicKey);
})();

const insertChallenge = db.prepare('INSERT INTO challenge (id, expiresAt) VALUES (?, ?)');
const consumeChallenge = db.prepare('DELETE FROM challenge WHERE id = ? AND expiresAt > ? RETURNING id');
const findCredential = db.prepare('SELECT id, userId, publicKey, counter FROM credential WHERE id = ?');
const updateCounter = db.prepare('UPDATE credential SET counter = ? WHERE id = ? AND counter = ?');

const app = express();
app.use(express.json());
app.post('/signin/begin', (req, res) => {
  const challenge = randomBytes(32).toString('base64url');
  insertChallenge.run(challenge, Date.now() + 90_000);
  res.json({ challenge });
});
app.post('/signin/complete', async (req, res) => {
  const { challenge, response } = req.body;
  if (!consumeChallenge.get(challenge, Date.now())) return res.status(400).json({ error: 'challenge' });
  const credential = findCredential.get(response.id);
  if (!credential) return res.status(400).json({ error: 'credential' });
  const clientDataJSON = response.response.clientDataJSON ?? response.response.clientDataJson;
  let verification;
  try {
    verification = await verifyAuthenticationResponse({
      response: { ...response, response: { ...response.response, clientDataJSON } },
      expectedChallenge: challenge,
      expectedOrigin: ORIGIN,
      expectedRPID: RPID,
      credential: { id: credential.id, publicKey: new Uint8Array(Buffer.from(credential.publicKey, 'base64url')), counter: credential.counter },
    });
  } catch (error) {
    return res.status(400).json({ error: String(error.message) });
  }
  if (!verification.verified) return res.status(400).json({ error: 'signature' });
  if (updateCounter.run(verification.authenticationInfo.newCounter, credential.id, credential.counter).changes !== 1) return res.status(400).json({ error: 'counter' });
  const payload = Buffer.from(JSON.stringify({ sub: credential.userId, exp: Date.now() + 120_000 })).toString('base64url');
  res.json({ token: `${payload}.${createHmac('sha256', TOKEN_KEY).update(payload).digest('base64url')}` });
});
app.listen(Number(process.env.PORT), '127.0.0.1');
