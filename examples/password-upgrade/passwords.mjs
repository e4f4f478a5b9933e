// Password hashes with node:crypto's scrypt, at the cost OWASP's Password Storage Cheat Sheet gives
// for it (N=2^17, r=8, p=1: about 0.3 s and 128 MiB a hash here), so no dependency is needed.
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

const COST = { N: 2 ** 17, r: 8, p: 1 };
const KEY_BYTES = 32;
// scrypt needs 128·N·r bytes; Node refuses more than 32 MiB unless told.
const MAX_MEMORY = 256 * 1024 * 1024;

function derive(password, salt, { N, r, p }) {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, KEY_BYTES, { N, r, p, maxmem: MAX_MEMORY }, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** `scrypt$N$r$p$<salt>$<key>` (base64url): the cost travels with the hash, so it can be raised later. */
export async function hashPassword(password) {
  const salt = randomBytes(16);
  const key = await derive(password, salt, COST);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** A hash of nothing anyone can type, for unknown addresses: their answer takes as long as a wrong password's. */
let decoy;
const decoyHash = () => (decoy ??= hashPassword(randomBytes(32).toString('hex')));

/**
 * Whether `password` matches `stored` (compared in constant time). With no `stored` hash (an
 * unknown address) it checks against a decoy, so that the answer takes as long and says no.
 */
export async function verifyPassword(password, stored) {
  const known = typeof stored === 'string';
  const [scheme, N, r, p, salt, key] = (known ? stored : await decoyHash()).split('$');
  if (scheme !== 'scrypt' || typeof password !== 'string') return false;
  const expected = Buffer.from(key, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(N), r: Number(r), p: Number(p) });
  return timingSafeEqual(actual, expected) && known;
}
