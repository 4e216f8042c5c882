// The one SQL interface every repository is written against. SQL uses PostgreSQL-style `$1`
// placeholders and a portable subset (TEXT, BIGINT, INTEGER 0/1 flags, no RETURNING-only tricks),
// so the same statements run on SQLite (default) and PostgreSQL (scale-out).

export type SqlValue = string | number | bigint | null;
export type SqlRow = Record<string, unknown>;

export interface SqlExecutor {
  /** Runs a statement and returns its rows (empty for writes). */
  query<R extends SqlRow = SqlRow>(sql: string, params?: readonly SqlValue[]): Promise<R[]>;
  /** Runs a statement and returns the number of rows it changed. */
  execute(sql: string, params?: readonly SqlValue[]): Promise<number>;
}

export interface SqlDatabase extends SqlExecutor {
  readonly dialect: 'sqlite' | 'postgres';
  /**
   * Runs `fn` in one transaction: committed if it resolves, rolled back if it throws. Nothing else
   * runs on the same connection meanwhile, so statements from other callers never join it.
   */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** Reads a BIGINT column that PostgreSQL returns as a string and SQLite as a number. */
export function toNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'string') return Number(value);
  throw new TypeError(`not a number column: ${String(value)}`);
}
