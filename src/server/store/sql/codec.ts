/**
 * How one database's rows hold the values Prisma encodes its own way, so that rows written here and
 * rows written through Prisma read the same: times (epoch milliseconds here) and booleans. One per
 * database (`sqliteCodec`, `postgresCodec`); every statement of the SQL layer encodes and decodes
 * through its database's.
 */
export interface SqlCodec {
  time(ms: number): unknown;
  bool(value: boolean): unknown;
  /** A stored time as epoch milliseconds. */
  timeOf(value: unknown): number;
  boolOf(value: unknown): boolean;
}
