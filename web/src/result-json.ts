// The CLI's `membudget eval` JSON (engine/src/io/json_write.cpp, resultToJson), written on the page from the engine's
// result by the record tables (web/src/record-json.ts), so that the wasm carries no JSON serializer (it cost 10 KB
// gzipped). Loaded when a download is asked for; tests/wasm/engine.test.ts checks that a download is byte-identical
// to the CLI's output for the same configuration.
import type { Config, Engine } from './engine';
import { RECORD_TABLES } from './generated/record-tables';
import { RecordJson } from './record-json';

export function resultJson(engine: Engine, config: Config): string {
  // The configuration's fields in the field table's order, as the CLI writes them.
  const configObject = (c: unknown) => Object.fromEntries(engine.fields.map((f) => [f.key, (c as Config)[f.key]]));
  const result = engine.result(config);
  const out: Record<string, unknown> = {};
  new RecordJson(RECORD_TABLES, { config: configObject }).write(out, result as unknown as Record<string, unknown>, 'Result');
  if (result.errors.length === 0) out.query = engine.encodeQuery(config);
  out.config = configObject(config);
  return JSON.stringify(out, null, 2);
}
