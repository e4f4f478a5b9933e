import { request, type Dispatcher } from 'undici';

export interface DoctorAnswer {
  status: number;
  /** The Date header, as a time (NaN without one). */
  date: number;
  /** The body as JSON, or undefined when it is not JSON. */
  json: unknown;
}

/** One request of the doctor's; rejects with the connection's error code when nothing answered. */
export async function doctorRequest(dispatcher: Dispatcher, url: string, options: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: unknown } = {}): Promise<DoctorAnswer> {
  const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  const answer = await request(url, { dispatcher, method: options.method ?? 'GET', headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const text = await answer.body.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  const date = answer.headers.date;
  return { status: answer.statusCode, date: typeof date === 'string' ? Date.parse(date) : Number.NaN, json };
}
