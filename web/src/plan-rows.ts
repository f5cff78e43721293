// A plan's rows as the page reads them, and as they cross the wasm boundary: one number per column of the
// module's planRowColumns() (engine/src/plan/plan_row.cpp), a Float64Array instead of an object per row.
import type { PlanRow } from './generated/records';
import type { PlanRowColumn } from './wasm/membudget.js';

export type { PlanRow };

// A plan row crosses as one number per column of the module's planRowColumns() (engine/src/plan/plan_row.cpp).
export function decodeRows(flat: Float64Array, columns: readonly PlanRowColumn[]): PlanRow[] {
  const rows: PlanRow[] = [];
  for (let i = 0; i + columns.length <= flat.length; i += columns.length) {
    const row: Record<string, number | boolean | string> = {};
    columns.forEach((column, k) => {
      const value = flat[i + k]!;
      row[column.key] = column.kind === 'boolean' ? value !== 0 : column.kind === 'choice' ? (column.choices[value] ?? '') : value;
    });
    rows.push(row as unknown as PlanRow);
  }
  return rows;
}

export function encodeRows(rows: readonly PlanRow[], columns: readonly PlanRowColumn[]): Float64Array {
  const flat = new Float64Array(rows.length * columns.length);
  rows.forEach((r, i) => {
    const row = r as unknown as Record<string, number | boolean | string>;
    columns.forEach((column, k) => {
      const value = row[column.key];
      flat[i * columns.length + k] =
        column.kind === 'boolean'
          ? value
            ? 1
            : 0
          : column.kind === 'choice'
            ? Math.max(0, column.choices.indexOf(String(value)))
            : Number(value);
    });
  });
  return flat;
}
