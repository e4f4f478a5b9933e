import { databaseLabel } from './databaseLabel';

describe('databaseLabel', () => {
  it('never shows a password or the query string', () => {
    const label = databaseLabel('postgres://app:s3cr%21t@db.example.com:5433/passkeys?sslmode=require&password=other');
    expect(label).toBe('postgres://app@db.example.com:5433/passkeys');
    expect(label).not.toMatch(/s3cr|other/);
  });

  it('shows an SQLite file by its full path', () => {
    expect(databaseLabel('file:/var/lib/pwl/passwordless.db')).toBe('file:/var/lib/pwl/passwordless.db');
    expect(databaseLabel('file:data/x.db')).toMatch(/^file:\/.*\/data\/x\.db$/);
  });

  it('does not echo what it cannot read', () => {
    expect(databaseLabel('postgres://user:pw@[bad')).toBe('an unreadable database URL');
  });
});
