import type { Response } from 'supertest';
import { MANAGEMENT_KEY, type TestService } from './testService';

/** A key's id within its app: its last four characters. */
export const keyIdOf = (key: string): string => key.slice(-4);

/**
 * Asserts a problem-details answer: the exact media type the SDKs compare against, and a body
 * whose status and errorCode match.
 */
export function expectProblem(res: Response, status: number, errorCode: string): void {
  expect({ status: res.status, contentType: res.headers['content-type'], errorCode: res.body?.errorCode }).toEqual({
    status,
    contentType: 'application/problem+json',
    errorCode,
  });
  expect(res.body).toMatchObject({ type: expect.stringContaining(errorCode), title: expect.any(String), status });
}

/** Management API calls carrying the test service's ManagementKey. */
export function managementClient(svc: TestService) {
  return {
    get: (path: string) => svc.http.get(path).set('ManagementKey', MANAGEMENT_KEY),
    post: (path: string, body?: object) => {
      const request = svc.http.post(path).set('ManagementKey', MANAGEMENT_KEY);
      return body === undefined ? request : request.send(body);
    },
    delete: (path: string) => svc.http.delete(path).set('ManagementKey', MANAGEMENT_KEY),
  };
}

export type ManagementClient = ReturnType<typeof managementClient>;
