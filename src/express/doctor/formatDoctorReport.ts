import type { DoctorCheck } from './doctorCheck';

/** One line per check: `PASS name: summary` or `FAIL name: summary. Fix: …`. */
export function formatDoctorReport(checks: readonly DoctorCheck[]): string {
  const width = Math.max(0, ...checks.map((c) => c.name.length));
  return checks.map((c) => `${c.ok ? 'PASS' : 'FAIL'}  ${c.name.padEnd(width)}  ${c.summary}${c.ok ? '' : `. Fix: ${c.fix}`}\n`).join('');
}
