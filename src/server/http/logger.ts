import pino, { type Logger } from 'pino';

/** Header names whose values are credentials: never logged. */
export const REDACTED_PATHS = [
  'req.headers.apisecret',
  'req.headers.apikey',
  'req.headers.managementkey',
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
];

export function createLogger(level: string): Logger {
  return pino({ level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } });
}
