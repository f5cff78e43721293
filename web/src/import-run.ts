// One import, wherever it runs (the planner's worker, or in place in the single-file page): the format named or
// detected by the engine, the text parsed by the page's parsers (import-parse.ts), mapped by the engine.
import { MembudgetError, type Config, type ConfigImport, type Engine, type ImportFormat } from './engine';
import { parseImport } from './import-parse';

export async function importText(engine: Engine, config: Config, text: string, format: ImportFormat | ''): Promise<ConfigImport> {
  const chosen = format || engine.detectImportFormat(text);
  if (!chosen) throw new MembudgetError([{ field: 'import', message: engine.unrecognisedImport('The text') }]);
  const parsed = await parseImport(text, engine.importSyntax(chosen, text));
  return engine.importParsed(config, chosen, parsed);
}
