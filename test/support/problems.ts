import type { IncomingMessage, ServerResponse } from 'node:http';
import supertest, { type Response } from 'supertest';
import type { Provider } from '../../src/server/store/migrate';
import { expectProblem } from './http';
import { startTestService, warnIfPostgresSkipped, type TestService } from './testService';

export { expectProblem };

/** A 400 validation problem whose `errors` names `field` (or a field under it, e.g. `aliases.3`). */
export function expectValidationProblem(res: Response, field: string): void {
  expectProblem(res, 400, 'validation_failed');
  const fields = Object.keys(res.body.errors ?? {});
  expect(fields.filter((f) => f === field || f.startsWith(`${field}.`))).not.toEqual([]);
  for (const messages of Object.values(res.body.errors as Record<string, unknown>)) {
    expect(messages).toEqual(expect.arrayContaining([expect.any(String)]));
  }
}

interface Answer {
  request: string;
  status: number;
  contentType: string | undefined;
}

/** Answers that break the contract: any 5xx, or a 4xx that is not exactly application/problem+json. */
function badAnswers(answers: Answer[]): Answer[] {
  return answers.filter((a) => a.status >= 500 || (a.status >= 400 && a.contentType !== 'application/problem+json'));
}

/**
 * Routes `svc.http` through a recorder, so that every answer a suite receives, including those
 * made inside the ceremony helpers, can be checked against the error contract.
 */
function recordAnswers(svc: TestService): Answer[] {
  const answers: Answer[] = [];
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const request = `${req.method} ${req.url}`;
    res.on('finish', () => {
      const contentType = res.getHeader('content-type');
      answers.push({ request, status: res.statusCode, contentType: contentType === undefined ? undefined : String(contentType) });
    });
    svc.app(req, res);
  };
  svc.http = supertest(handler);
  return answers;
}

/**
 * Starts a fresh service for the surrounding `describe` and checks after every test that no
 * answer was a 5xx and every 4xx was `application/problem+json`. Returns a getter for the service.
 */
export function useTestService(provider: Provider, env?: Record<string, string>): () => TestService {
  warnIfPostgresSkipped();
  let svc: TestService | undefined;
  let answers: Answer[] = [];
  beforeAll(async () => {
    svc = await startTestService(provider, env);
    answers = recordAnswers(svc);
  });
  afterEach(() => {
    const bad = badAnswers(answers);
    answers.length = 0;
    expect(bad).toEqual([]);
  });
  afterAll(() => svc?.close());
  return () => {
    if (!svc) throw new Error('the test service is not started yet');
    return svc;
  };
}
