// The CLI's JSON of a record, written from the page's object of it by the engine's own record tables
// (web/src/generated/record-tables.ts, from `membudget records`): the same walk as engine/src/io/json_record.cpp, so
// that the wasm carries no JSON serializer and a new column needs no edit here. tests/wasm/engine.test.ts holds the
// page's download byte for byte against the CLI's.

/** A column as record-json walks it (scripts/record-types.mjs writes them from the engine's tables). */
export interface RecordColumn {
  page: string;
  json: string | null;
  kind:
    | 'number'
    | 'fraction'
    | 'flag'
    | 'text'
    | 'choice'
    | 'texts'
    | 'numbers'
    | 'record'
    | 'records'
    | 'parts'
    | 'byLine'
    | 'config'
    | 'settings';
  round?: number;
  scale?: number;
  flags?: string[];
  presentIf?: string;
  child?: string;
  /** A choice's first id, which is not truthy (a mode's training). */
  first?: string;
  none?: string;
}
export type RecordTables = Record<string, { presentIf?: string; errors?: string; columns: RecordColumn[] }>;

/** What a walk needs beyond the tables: the configuration as the CLI writes it. */
export interface RecordJsonContext {
  config: (config: unknown) => Record<string, unknown>;
}

type Json = unknown;
type PageObject = Record<string, unknown>;

const has = (c: RecordColumn, flag: string) => c.flags?.includes(flag) ?? false;

/** Rounded as std::round rounds (halves away from zero), to 10^-round, after scaling by 10^scale. */
function numberJson(c: RecordColumn, value: number): number {
  let v = c.scale ? value * 10 ** c.scale : value;
  if (c.round !== undefined) {
    const perOne = 10 ** c.round;
    v = (Math.sign(v) * Math.round(Math.abs(v) * perOne)) / perOne;
  }
  return v;
}

function truthy(c: RecordColumn, value: unknown): boolean {
  if (value === null || value === undefined) return false;
  if (c.kind === 'choice') return value !== c.first;
  if (typeof value === 'number') return value > 0;
  if (typeof value === 'string' || Array.isArray(value)) return value.length > 0;
  return Boolean(value);
}

export class RecordJson {
  readonly #tables: RecordTables;
  readonly #context: RecordJsonContext;

  constructor(tables: RecordTables, context: RecordJsonContext) {
    this.#tables = tables;
    this.#context = context;
  }

  /** The record's columns into `out`, in the table's order, as the CLI writes them. */
  write(out: PageObject, record: PageObject, name: string, lines: string[] = []): void {
    const table = this.#tables[name];
    if (!table) throw new Error(`record-json: no table ${name}`);
    const own = table.columns.find((c) => c.page === 'lines' && c.child === 'Line');
    if (own) lines = (record.lines as { id: string }[]).map((l) => l.id);
    const errors = table.errors === undefined ? undefined : table.columns.find((c) => c.page === table.errors);
    if (errors && (record[errors.page] as unknown[]).length > 0) {
      // A refused record says what it is and why, and nothing else.
      for (const c of table.columns) if (has(c, 'keepOnError')) this.#column(out, record, name, c, lines);
      out[errors.json!] = this.#value(errors, record[errors.page], lines);
      return;
    }
    for (const c of table.columns) this.#column(out, record, name, c, lines);
  }

  object(record: PageObject, name: string, lines: string[] = []): PageObject {
    const out: PageObject = {};
    this.write(out, record, name, lines);
    return out;
  }

  #present(name: string, record: PageObject): boolean {
    const key = this.#tables[name]!.presentIf;
    if (key === undefined) return true;
    return truthy(
      this.#tables[name]!.columns.find((c) => c.page === key)!,
      record[key],
    );
  }

  #absent(out: PageObject, c: RecordColumn): void {
    if (has(c, 'omitIfAbsent')) return;
    if (c.kind === 'record' && c.json === '') {
      for (const child of this.#tables[c.child!]!.columns) if (!has(child, 'pageOnly')) this.#absent(out, child);
    } else {
      out[c.json!] = null;
    }
  }

  #column(out: PageObject, record: PageObject, name: string, c: RecordColumn, lines: string[]): void {
    if (has(c, 'pageOnly')) return;
    if (c.presentIf !== undefined) {
      const condition = this.#tables[name]!.columns.find((k) => k.page === c.presentIf)!;
      if (truthy(condition, record[c.presentIf]) === has(c, 'presentIfNot')) return this.#absent(out, c);
    }
    if (c.kind === 'record') {
      // A record whose page key is "" holds its columns in this object, there or not (its presentIf says); one of its
      // own is null on the page where absent.
      const child = (c.page === '' ? record : record[c.page]) as PageObject | null;
      if (child === null || (c.page === '' && !this.#present(c.child!, child))) return this.#absent(out, c);
      if (c.json === '') return this.write(out, child, c.child!, lines);
      out[c.json!] = this.object(child, c.child!, lines);
      return;
    }
    const value = record[c.page];
    if (value === null || (has(c, 'nullIfFalsy') && !truthy(c, value))) out[c.json!] = null;
    else out[c.json!] = this.#value(c, value, lines);
  }

  #value(c: RecordColumn, value: unknown, lines: string[]): Json {
    switch (c.kind) {
      case 'number':
        return numberJson(c, value as number);
      case 'fraction':
      case 'settings':
        // A double JSON writes as 0.0, and assignments typed by their fields: the CLI's alone (plans, advice, imports),
        // which the page never downloads.
        throw new Error(`record-json: ${c.kind} column ${c.page} is written by the CLI only`);
      case 'byLine':
        return Object.fromEntries((value as number[]).slice(0, lines.length).map((bytes, i) => [lines[i], numberJson(c, bytes)]));
      case 'parts':
        return Object.fromEntries((value as { id: string; seconds: number }[]).map((p) => [p.id, numberJson(c, p.seconds)]));
      case 'records': {
        if (has(c, 'byKey')) {
          // Already an object by key on the page: its values written as the value column says.
          const val = this.#tables[c.child!]!.columns[1]!;
          return Object.fromEntries(Object.entries(value as PageObject).map(([key, v]) => [key, this.#value(val, v, lines)]));
        }
        return (value as PageObject[]).map((item) => this.object(item, c.child!, lines));
      }
      case 'config':
        return this.#context.config(value);
      default:
        return value;
    }
  }
}
