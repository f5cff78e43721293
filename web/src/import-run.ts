// One import, wherever it runs (the planner's worker, or in place in the single-file page): the format named or
// detected by the engine, the text parsed by the page's parsers (import-parse.ts), mapped by the engine.
import { MembudgetError, type Config, type ConfigImport, type Engine, type ImportFormat } from './engine';
import { parseImport } from './import-parse';

/** The CLI's words when no format fits (cli/cli.cpp readImport), for the pasted text. */
export const UNRECOGNISED_IMPORT =
  'The text is not a configuration membudget can read: expected a Megatron-LM script, a torchtitan TOML, a torchtune YAML or tune run command, a DeepSpeed JSON, a config.json or a vllm serve command (choose its format)';

export async function importText(engine: Engine, config: Config, text: string, format: ImportFormat | ''): Promise<ConfigImport> {
  const chosen = format || engine.detectImportFormat(text);
  if (!chosen) throw new MembudgetError([{ field: 'import', message: UNRECOGNISED_IMPORT }]);
  const parsed = await parseImport(text, engine.importSyntax(chosen, text));
  return engine.importParsed(config, chosen, parsed);
}
