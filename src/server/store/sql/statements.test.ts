import { STATEMENTS, positionalStatement } from './statements';

describe('positionalStatement', () => {
  it('numbers each named parameter by its first use and reuses the number', () => {
    expect(positionalStatement('SELECT 1 WHERE "a" = @tenant AND "b" > @after AND "c" = @tenant LIMIT @limit')).toEqual({
      text: 'SELECT 1 WHERE "a" = $1 AND "b" > $2 AND "c" = $1 LIMIT $3',
      names: ['tenant', 'after', 'limit'],
    });
  });

  it('leaves a statement without parameters as it is', () => {
    expect(positionalStatement('SELECT 1')).toEqual({ text: 'SELECT 1', names: [] });
  });

  it('names the app in every statement but the webhook worker’s: reads and changes are scoped by it, rows are written for it', () => {
    const unscoped = [];
    for (const [name, { sql }] of Object.entries(STATEMENTS)) {
      // The event log's batch holds several apps' events, a change's webhook deliveries are its
      // app's, a run's attempts its deliveries', and a flush of sign-in tallies several apps' days:
      // each row carries its own app, written into "tenant".
      const batchOfRows = /json_each\(@(events|deliveries|attempts|signIns)\)/.test(sql) && /value ->> 'tenant'/.test(sql);
      // An INSERT … SELECT FROM "App" WHERE "id" = @tenant writes a row only for the app it names, an INSERT … SELECT @tenant only for that app.
      const fromTheApp = /SELECT "id", .* FROM "App" WHERE "id" = @tenant/s.test(sql) || /SELECT (@id, )?@tenant\b/.test(sql);
      const scoped = sql.startsWith('INSERT') ? /VALUES \(.*@tenant/s.test(sql) || fromTheApp || batchOfRows : /"(tenant|id)" = @tenant/.test(sql);
      if (!scoped) unscoped.push(name);
    }
    // The worker serves every app: it claims whatever is due, whichever app's, and renews its own
    // claims by its id and theirs (the claim's turns between apps keep one app from taking every slot).
    expect(unscoped).toEqual(['claimWebhookHeads', 'renewWebhookClaims']);
  });

  it('writes each event of a batch for the app the event names', () => {
    const { sql, postgres } = STATEMENTS.insertEvents as { sql: string; postgres: string };
    expect(sql).toMatch(/^INSERT INTO "Event" \("id", "tenant"/);
    expect(sql).toMatch(/SELECT value ->> 'id', value ->> 'tenant'/);
    expect(postgres).toMatch(/SELECT "id", "tenant"/);
  });
});
