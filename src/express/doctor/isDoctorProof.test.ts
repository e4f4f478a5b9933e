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
});
