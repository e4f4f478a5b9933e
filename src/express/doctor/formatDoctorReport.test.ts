import { fail, pass } from './doctorCheck';
import { formatDoctorReport } from './formatDoctorReport';

describe('formatDoctorReport', () => {
  it('writes one aligned line per check, with the fix after a failure', () => {
    expect(formatDoctorReport([pass('service', 'answers'), fail('rp-id', "'a.com' does not fit", "use 'b.com'")])).toBe("PASS  service  answers\nFAIL  rp-id    'a.com' does not fit. Fix: use 'b.com'\n");
  });
});
