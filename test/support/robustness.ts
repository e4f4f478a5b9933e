import type { Response } from 'supertest';
import type { TestService } from './testService';

/** The HTTP methods the robustness suites call the service with. */
export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** A supertest request of `method` to `path` on the test service. */
export const requestOf = (svc: TestService, method: Method, path: string) =>
  method === 'GET' ? svc.http.get(path) : method === 'POST' ? svc.http.post(path) : method === 'PUT' ? svc.http.put(path) : svc.http.delete(path);

/** Asserts the error contract for one answer: never a 5xx, and every 4xx a problem; `label` names the input in a failure. */
export const expectNoServerError = (res: Response, label: string) => {
  const { status } = res;
  const contentType = res.headers['content-type'];
  // Every 4xx is a problem; anything below 400 is a real answer.
  expect({ label, serverError: status >= 500, problem: status < 400 || contentType === 'application/problem+json' }).toEqual({ label, serverError: false, problem: true });
};
