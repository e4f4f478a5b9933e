import { Pool, type PoolClient, type QueryResult } from 'pg';
import { openPipelinedConnections } from './pipelinedConnections';
import { batchPerTurn } from './batchPerTurn';
import { isForeignKeyViolation } from '../../core/storeErrors';
import type { NewRegistration } from './queries';
import type { BatchedWrite, SqlDriver, StatementResult } from './driver';
import { postgresCodec, postgresTypeParsers as typeParsers } from './postgresCodec';
import { COMPOSED_STATEMENTS, STATEMENTS, positionalStatement, statementSql, type StatementName } from './statements';
import { stepConditionHolds, type KeptRows, type UnitOutcome, type UnitStep } from './unit';

const pgTime = postgresCodec.time;

// Named statements: pg prepares each once per pooled connection and reuses it.
const PREPARED = Object.fromEntries(
  (Object.keys(STATEMENTS) as StatementName[]).map((name) => {
    const { text, names } = positionalStatement(statementSql(name, 'postgresql'));
    return [name, { name: `sql_${name}`, kind: STATEMENTS[name].kind, text, names, returnsRows: /^SELECT\b|\bRETURNING\b/.test(text) }];
  }),
) as Record<StatementName, { name: string; kind: 'read' | 'write'; text: string; names: string[]; returnsRows: boolean }>;

/** Statements composed of others (below, and `COMPOSED_STATEMENTS`), named and prepared like them, built on first use. */
const composed = new Map<string, { name: string; text: string; names: string[] }>();
function composedStatement(name: string, sql: () => string): { name: string; text: string; names: string[] } {
  let statement = composed.get(name);
  if (!statement) {
    statement = { name, ...positionalStatement(sql()) };
    composed.set(name, statement);
  }
  return statement;
}

/**
 * A guarded write and the outbox rows that report it (a sign-in, a redeemed token with webhook
 * subscribers) as one statement: the write in a data-modifying CTE, the rows inserted only if it
 * changed a row. One round trip instead of four (BEGIN, the write, the insert, COMMIT), and a
 * single statement is atomic on its own.
 */
const guardedWithDeliveriesStatement = (guarded: StatementName) =>
  composedStatement(
    `sql_${guarded}_with_deliveries`,
    () => `WITH "guarded" AS (${statementSql(guarded, 'postgresql')} RETURNING 1) ${statementSql('insertWebhookDeliveries', 'postgresql')} WHERE EXISTS (SELECT 1 FROM "guarded")`,
  );

/**
 * How long an idle connection is kept (pg's default is 10 s). Each connection holds its prepared
 * statements, so traffic that pauses for a few seconds would otherwise pay a connection and a
 * round of preparing on its return.
 */
const IDLE_TIMEOUT_MS = 60_000;

/** How `pwl_store_registration` (a migration of its own) reports a step that found no room: its message names the failure. */
const UNIT_FAILURE = 'PWL01';
const STORE_REGISTRATION = {
  name: 'sql_store_registration',
  text: 'SELECT "pwl_store_registration"($1, $2, $3, $4, $5, $6, $7) AS "outcome"',
};

/** The function's arguments: the unit `registrationSteps` would run, as values and JSON. */
function registrationArguments({ tenant, credential, aliases, redeemedToken, webhookDeliveries }: NewRegistration): unknown[] {
  return [
    tenant,
    credential.userId,
    redeemedToken?.tokenId ?? null,
    redeemedToken ? pgTime(redeemedToken.expiresAt) : null,
    aliases === undefined ? null : JSON.stringify(aliases.map(({ aliasHash, plaintext }) => ({ aliasHash, plaintext }))),
    JSON.stringify({ ...credential, createdAt: pgTime(credential.createdAt), lastUsedAt: pgTime(credential.lastUsedAt) }),
    webhookDeliveries && webhookDeliveries.length > 0 ? JSON.stringify(webhookDeliveries.map((d) => ({ ...d, createdAt: pgTime(d.createdAt) }))) : null,
  ];
}

/** `redeemToken` for the redemptions of one turn (see `batchPerTurn`): the ids as one JSON array, answering those it recorded. */
const REDEEM_ALL = {
  name: 'sql_redeem_all',
  text: `INSERT INTO "RedeemedToken" ("tenant", "tokenId", "expiresAt")
    SELECT "tenant", "tokenId", "expiresAt" FROM json_populate_recordset(NULL::"RedeemedToken", CAST($1 AS json))
    ON CONFLICT DO NOTHING RETURNING "tenant", "tokenId"`,
};

/**
 * `recordCredentialUse` and `recordCredentialUseOnNewDay` for the sign-ins of one turn, with the
 * same conditions per row, answering the passkeys it updated. `usedDay` null keeps the stored day
 * (setting an indexed column to its own value keeps the update heap-only on PostgreSQL).
 */
const RECORD_USES = {
  name: 'sql_record_uses',
  text: `UPDATE "Credential" AS c SET "signatureCounter" = u."newCounter", "backupState" = u."backupState", "uvInitialized" = u."uvInitialized",
      "lastUsedAt" = u."usedAt", "lastUsedDay" = COALESCE(u."usedDay", c."lastUsedDay"), "device" = u."device", "country" = u."country"
    FROM json_to_recordset(CAST($1 AS json)) AS u("tenant" TEXT, "descriptorId" TEXT, "storedCounter" BIGINT, "newCounter" BIGINT, "backupState" BOOLEAN,
      "uvInitialized" BOOLEAN, "usedAt" TIMESTAMP(3), "usedDay" INTEGER, "device" TEXT, "country" TEXT)
    WHERE c."tenant" = u."tenant" AND c."descriptorId" = u."descriptorId"
      AND ((u."newCounter" > 0 AND c."signatureCounter" < u."newCounter") OR (u."newCounter" = 0 AND c."signatureCounter" = u."storedCounter"))
    RETURNING c."tenant", c."descriptorId"`,
};

/** A deadlock or a serialization failure: the transaction was rolled back and may simply be run again. */
const isRetryable = (error: unknown): boolean => ['40P01', '40001'].includes((error as { code?: string })?.code ?? '');
const UNIT_ATTEMPTS = 3;

/**
 * The SQL layer on PostgreSQL connections of its own: every single statement (a read, a write, the composed
 * statements above) is pipelined on a few connections (`pipelinedConnections.ts`); a unit of
 * several statements is one transaction on a pooled connection of its own. Both open connections
 * on demand, so an idle service holds none; `max` bounds each kind.
 */
export function openPostgresDriver(
  connectionString: string,
  max: { statements: number; units: number },
  /** Registrations through `pwl_store_registration` (one statement) rather than as a unit of steps; tests compare the two. */
  { registrationStatement = true }: { registrationStatement?: boolean } = {},
): SqlDriver {
  // Reads on connections of their own: a statement waits behind those before it on its connection,
  // and a write's commit waits for the WAL to reach the disk, which a read needs not wait for.
  const half = Math.max(1, Math.ceil(max.statements / 2));
  const reads = openPipelinedConnections({ connectionString, max: half, types: typeParsers, idleTimeoutMs: IDLE_TIMEOUT_MS });
  const statements = openPipelinedConnections({ connectionString, max: half, types: typeParsers, idleTimeoutMs: IDLE_TIMEOUT_MS });
  const pool = new Pool({ connectionString, max: max.units, types: typeParsers, idleTimeoutMillis: IDLE_TIMEOUT_MS });
  // An idle connection the server dropped (a restart, a failover) must not crash the process;
  // the next statement takes a fresh connection and reports its own error if there is one.
  pool.on('error', () => undefined);
  const run = (on: PoolClient | undefined, statement: StatementName, params: Record<string, unknown>): Promise<QueryResult<Record<string, unknown>>> => {
    const { name, text, names } = PREPARED[statement];
    const config = { name, text, values: names.map((key) => params[key]) };
    return on ? on.query(config) : PREPARED[statement].kind === 'read' ? reads.query(config) : statements.query(config);
  };
  // Redemptions and passkey uses of one turn of the event loop: one statement and one commit each.
  const rowKey = (tenant: unknown, id: unknown) => `${String(tenant)}\u0000${String(id)}`;
  const redeem = batchPerTurn<Record<string, unknown>>({
    keyOf: (row) => rowKey(row.tenant, row.tokenId),
    runAll: async (rows) => (await statements.query({ ...REDEEM_ALL, values: [JSON.stringify(rows)] })).rows.map((row) => rowKey(row.tenant, row.tokenId)),
    // The first asker of an id records it; a second in the same turn finds it recorded.
    duplicates: 'refuse',
    retryAlone: isForeignKeyViolation,
  });
  const recordUse = batchPerTurn<Record<string, unknown>>({
    keyOf: (use) => rowKey(use.tenant, use.descriptorId),
    runAll: async (uses) => (await statements.query({ ...RECORD_USES, values: [JSON.stringify(uses)] })).rows.map((row) => rowKey(row.tenant, row.descriptorId)),
    // A second use of one passkey must see the first one's counter: it goes in the next turn.
    duplicates: 'defer',
  });
  const resultOf = (statement: StatementName, result: QueryResult<Record<string, unknown>>): StatementResult =>
    PREPARED[statement].returnsRows ? result.rows[0] : { changes: result.rowCount ?? 0 };

  const runUnit = async (client: PoolClient, steps: UnitStep[]): Promise<UnitOutcome> => {
    await client.query('BEGIN');
    const kept: KeptRows = {};
    for (const step of steps) {
      if (step.onlyIf && !stepConditionHolds(step.onlyIf, kept)) continue;
      const statement = step.statement as StatementName;
      const result = await run(client, statement, step.params);
      if (step.as) kept[step.as] = result.rows[0];
      if (step.orFail !== undefined && (result.rowCount ?? 0) === 0) {
        await client.query('ROLLBACK');
        return { ok: false, failure: step.orFail };
      }
    }
    await client.query('COMMIT');
    return { ok: true, kept };
  };

  const batches: Record<BatchedWrite, (params: Record<string, unknown>) => Promise<boolean>> = {
    redeemToken: redeem,
    recordCredentialUse: (params) => recordUse({ usedDay: null, ...params }),
    recordCredentialUseOnNewDay: recordUse,
  };

  const driver: SqlDriver = {
    codec: postgresCodec,
    read: async (statement, params) => (await run(undefined, statement, params)).rows[0],
    readAll: async (statement, params) => (await run(undefined, statement, params)).rows,
    write: async (statement, params) => resultOf(statement, await run(undefined, statement, params)),
    writeAll: async (statement, params) => (await run(undefined, statement, params)).rows,
    // Redemptions and passkey uses of one turn of the event loop: one statement and one commit.
    batched: (statement, params) => batches[statement](params),
    async guardedWithDeliveries(write, deliveries) {
      const { name, text, names } = guardedWithDeliveriesStatement(write.statement as StatementName);
      const params = { ...write.params, ...deliveries.params };
      const result = await statements.query({ name, text, values: names.map((key) => params[key]) });
      return (result.rowCount ?? 0) > 0 ? { ok: true, kept: {} } : { ok: false, failure: write.orFail ?? 'not_changed' };
    },
    async composed(statement, size, params) {
      const { name, text, names } = composedStatement(`sql_${statement}_${size}`, () => COMPOSED_STATEMENTS[statement](size, 'postgresql'));
      return (await statements.query({ name, text, values: names.map((key) => params[key]) })).rows;
    },
    async unit(steps) {
      for (let attempt = 1; ; attempt++) {
        const client = await pool.connect();
        let broken: Error | undefined;
        try {
          return await runUnit(client, steps);
        } catch (error) {
          await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
          if (!isRetryable(error) || attempt === UNIT_ATTEMPTS) throw error;
        } finally {
          // A connection that could not even roll back is not given to the next caller.
          client.release(broken);
        }
      }
    },
    ...(registrationStatement && {
      async storeRegistration(registration) {
        const values = registrationArguments(registration);
        for (let attempt = 1; ; attempt++) {
          try {
            const { rows } = await statements.query({ ...STORE_REGISTRATION, values });
            const outcome = rows[0].outcome as string;
            return outcome === 'ok' ? { ok: true, kept: {} } : { ok: false, failure: outcome };
          } catch (error) {
            if ((error as { code?: string }).code === UNIT_FAILURE) return { ok: false, failure: (error as Error).message };
            if (!isRetryable(error) || attempt === UNIT_ATTEMPTS) throw error;
          }
        }
      },
    }),
    async close() {
      await Promise.all([reads.close(), statements.close()]);
      if (!pool.ended) await pool.end();
    },
  };
  return driver;
}
