/** One line of the doctor's report. */
export interface DoctorCheck {
  /** A short, stable name: `service`, `clock`, `origins`, `rp-id`, `https`, `mail`, `public-url`, `trust-proxy`. */
  name: string;
  ok: boolean;
  /** What was found, with the values compared. */
  summary: string;
  /** What to change; only on a failure. */
  fix?: string;
}

export const pass = (name: string, summary: string): DoctorCheck => ({ name, ok: true, summary });
export const fail = (name: string, summary: string, fix: string): DoctorCheck => ({ name, ok: false, summary, fix });
