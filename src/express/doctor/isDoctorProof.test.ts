import { doctorProof } from './doctorProof';
import { isDoctorProof } from './isDoctorProof';

const SECRET = 'demo:secret:0123456789abcdef0123456789abcdef';
const NOW = Date.parse('2026-11-27T12:00:00Z');

describe('isDoctorProof', () => {
  it("accepts a proof made with the host's ApiSecret within five minutes", () => {
    expect(isDoctorProof(doctorProof(SECRET, NOW), SECRET, NOW)).toBe(true);
    expect(isDoctorProof(doctorProof(SECRET, NOW - 299_000), SECRET, NOW)).toBe(true);
  });

  it('refuses another secret, an old or future proof, and junk', () => {
    expect(isDoctorProof(doctorProof('demo:secret:ffffffffffffffffffffffffffffffff', NOW), SECRET, NOW)).toBe(false);
    expect(isDoctorProof(doctorProof(SECRET, NOW - 301_000), SECRET, NOW)).toBe(false);
    expect(isDoctorProof(doctorProof(SECRET, NOW + 301_000), SECRET, NOW)).toBe(false);
    expect(isDoctorProof(undefined, SECRET, NOW)).toBe(false);
    expect(isDoctorProof('', SECRET, NOW)).toBe(false);
    expect(isDoctorProof(`${Math.floor(NOW / 1000)}.${'A'.repeat(43)}`, SECRET, NOW)).toBe(false);
    expect(isDoctorProof(`${doctorProof(SECRET, NOW)}x`, SECRET, NOW)).toBe(false);
  });

  it('refuses every other spelling of the MAC, even one that decodes to the same bytes', () => {
    const proof = doctorProof(SECRET, NOW);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(proof[proof.length - 1]);
    // The last character's two low bits are unused: these three decode to the proof's own bytes.
    const sameBytes = [1, 2, 3].map((flip) => `${proof.slice(0, -1)}${alphabet[last ^ flip]}`);
    for (const forged of sameBytes) {
      expect(Buffer.from(forged.split('.')[1], 'base64url')).toEqual(Buffer.from(proof.split('.')[1], 'base64url'));
      expect(isDoctorProof(forged, SECRET, NOW)).toBe(false);
    }
  });
});
