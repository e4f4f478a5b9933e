import { ApiError } from '../../core/apiError';
import { encodeCursor } from '../../core/pageCursor';
import { eventLogFilterOf } from './eventLogFilter';

const DAY = 86_400_000;

function refusal(query: unknown): { status: number; code: string; detail?: string } {
  try {
    eventLogFilterOf(query);
  } catch (error) {
    if (error instanceof ApiError) return { status: error.status, code: error.code, detail: error.detail };
    throw error;
  }
  throw new Error('accepted');
}

describe('eventLogFilterOf', () => {
  it('reads an empty form (every field blank) as no filter', () => {
    expect(eventLogFilterOf({ type: '', from: '', to: '', after: '' })).toEqual({ type: undefined, from: undefined, to: undefined, after: undefined, keep: { type: undefined, from: undefined, to: undefined } });
    expect(eventLogFilterOf({})).toEqual(eventLogFilterOf({ type: '' }));
  });

  it('takes UTC days with both ends included: from its start, to the end of the to day', () => {
    const filter = eventLogFilterOf({ type: 'ApiUserDeleteCredential', from: '2026-11-01', to: '2026-11-02' });
    expect(filter.type).toBe('ApiUserDeleteCredential');
    expect(filter.from).toBe(Date.UTC(2026, 10, 1));
    expect(filter.to).toBe(Date.UTC(2026, 10, 2) + DAY);
    expect(filter.keep).toEqual({ type: 'ApiUserDeleteCredential', from: '2026-11-01', to: '2026-11-02' });
  });

  it('carries the key of a cursor', () => {
    expect(eventLogFilterOf({ after: encodeCursor('1764000000000.0193a5c0-aaaa') }).after).toBe('1764000000000.0193a5c0-aaaa');
  });

  it.each([
    [{ type: 'NoSuchType' }, 'type'],
    [{ type: ['ApiUserDeleted', 'ApiUserDeleted'] }, 'type'],
    [{ from: '2026-02-30' }, 'from'],
    [{ from: '1.11.2026' }, 'from'],
    [{ to: '2026-13-01' }, 'to'],
    [{ from: '2026-11-02', to: '2026-11-01' }, 'to'],
    [{ after: 'not a cursor!' }, 'after'],
    [{ after: encodeCursor('no-time-here') }, 'after'],
  ])('refuses %j with a 400 naming %s', (query, field) => {
    const answer = refusal(query);
    expect(answer).toMatchObject({ status: 400, code: 'validation_failed' });
    expect(answer.detail).toMatch(new RegExp(`^${field} `));
  });
});
