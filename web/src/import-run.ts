// One import, wherever it runs (the planner's worker, or in place in the single-file page): the format named or
// detected by the engine, the text parsed by the page's parsers (import-parse.ts), mapped by the engine.
import { MembudgetError, type Config, type ConfigImport, type Engine, type ImportFormat } from './engine';
import { parseImport } from './import-parse';
import { LISTED_ITEMS } from './limits';

export async function importText(engine: Engine, config: Config, text: string, format: ImportFormat | ''): Promise<ConfigImport> {
  const chosen = format || engine.detectImportFormat(text);
  if (!chosen) throw new MembudgetError([{ field: 'import', message: engine.unrecognisedImport('The text') }]);
  const parsed = await parseImport(text, engine.importSyntax(chosen, text));
  return engine.importParsed(config, chosen, parsed);
}

/**
 * An import as the page reports it: its long lists cut to what the report shows (LISTED_ITEMS), with their totals,
 * so that a file of 200,000 unmapped values crosses from the worker and renders as fast as a short one.
 */
export interface ReportedImport extends ConfigImport {
  unmappedTotal: number;
  warningsTotal: number;
}

export function reportedImport(imported: ConfigImport): ReportedImport {
  return {
    ...imported,
    unmapped: imported.unmapped.slice(0, LISTED_ITEMS),
    warnings: imported.warnings.slice(0, LISTED_ITEMS),
    unmappedTotal: imported.unmapped.length,
    warningsTotal: imported.warnings.length,
  };
}
