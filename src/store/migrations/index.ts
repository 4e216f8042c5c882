// The ordered list of all migrations. Each feature adds its own file and one line here.
import type { Migration } from './migrate.js';

export const migrations: readonly Migration[] = [];
