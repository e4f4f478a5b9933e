import type { Attributes } from '@opentelemetry/api';
import { inSpan } from '../../core/telemetry/tracing';
import type { SqlDriver } from './driver';
import { STATEMENTS, statementSql, type StatementName } from './statements';
import { statementTable } from './statementTable';
import type { UnitStep } from './unit';

type Provider = 'sqlite' | 'postgresql';

/**
 * The driver with a span around each call: `sql <statement>` (or `sql unit` for steps that commit
 * together), with the statement's name, its table and the database, never a parameter's value.
 * Used only when tracing is on (openStore); off, the store holds the driver itself. Only under
 * an active span (a request's, a delivery's): the background jobs' polling makes no root spans. A Proxy, so
 * that a capability added to the driver later passes through untraced rather than missing.
 */
export function tracedDriver(driver: SqlDriver, provider: Provider): SqlDriver {
  const tables = new Map<string, string | undefined>();
  const tableOf = (statement: string) => {
    if (!tables.has(statement)) tables.set(statement, statement in STATEMENTS ? statementTable(statementSql(statement as StatementName, provider)) : undefined);
    return tables.get(statement);
  };
  const named = (statement: string, extra: Attributes = {}): Attributes => {
    const table = tableOf(statement);
    return { 'db.system.name': provider, 'passwordless.statement': statement, ...(table ? { 'db.collection.name': table } : {}), ...extra };
  };
  const steps = (list: UnitStep[]): Attributes => ({ 'db.system.name': provider, 'passwordless.statements': list.map((step) => step.statement), 'passwordless.steps': list.length });

  const traced: Partial<Record<keyof SqlDriver, (...args: never[]) => unknown>> = {
    read: (statement: string, params: Record<string, unknown>) => inSpan(`sql ${statement}`, () => driver.read(statement as never, params), { attributes: () => named(statement), requireParent: true }),
    readAll: (statement: string, params: Record<string, unknown>) => inSpan(`sql ${statement}`, () => driver.readAll(statement as never, params), { attributes: () => named(statement), requireParent: true }),
    write: (statement: string, params: Record<string, unknown>) => inSpan(`sql ${statement}`, () => driver.write(statement as never, params), { attributes: () => named(statement), requireParent: true }),
    writeAll: (statement: string, params: Record<string, unknown>) => inSpan(`sql ${statement}`, () => driver.writeAll(statement as never, params), { attributes: () => named(statement), requireParent: true }),
    batched: (statement: string, params: Record<string, unknown>) =>
      inSpan(`sql ${statement}`, () => driver.batched(statement as never, params), { attributes: () => named(statement, { 'passwordless.batched': true }), requireParent: true }),
    unit: (list: UnitStep[]) => inSpan('sql unit', () => driver.unit(list), { attributes: () => steps(list), requireParent: true }),
    guardedWithDeliveries: (write: UnitStep, deliveries: UnitStep) =>
      inSpan(`sql ${write.statement}`, () => driver.guardedWithDeliveries(write, deliveries), { attributes: () => named(write.statement, { 'passwordless.statements': [write.statement, deliveries.statement] }), requireParent: true }),
    composed: (statement: string, size: number, params: Record<string, unknown>) =>
      inSpan(`sql ${statement}`, () => driver.composed(statement as never, size, params), { attributes: () => named(statement, { 'passwordless.parts': size, 'db.collection.name': 'WebhookDelivery' }), requireParent: true }),
  };
  if (driver.storeRegistration) {
    const store = driver.storeRegistration.bind(driver);
    traced.storeRegistration = ((registration: never) =>
      inSpan('sql storeRegistration', () => store(registration), { attributes: () => ({ 'db.system.name': provider, 'passwordless.statement': 'storeRegistration', 'db.collection.name': 'Credential' }), requireParent: true })) as never;
  }
  return new Proxy(driver, {
    get(target, property) {
      const wrapper = traced[property as keyof SqlDriver];
      if (wrapper) return wrapper;
      // On the driver itself, so that its own calls (and private fields) never go through the proxy.
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
