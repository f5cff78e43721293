// The page's side of an import (docs/import.md): the text parsed by maintained parsers, JSON.parse, smol-toml,
// yaml and shell-quote, into what the engine's mapping takes (values by path, or each line's words), exactly as
// the CLI's cli/import_parse.cpp does with nlohmann/json, toml++, yaml-cpp and its tokenizer. The parsers load
// only when an import starts (dynamic imports, in the planner's worker).
import { childPath } from './child-path';
import type { HfValue } from './wasm/membudget';
import { parseJsonWithPythonConstants } from './python-json';

export interface ParsedImport {
  rootType: string;
  error: string;
  values: HfValue[];
  lines: string[][];
}

/** More values than this, or a nesting deeper than 32, is refused (cli/import_parse.hpp kMaxImportValues). */
export const MAX_IMPORT_VALUES = 200_000;

const typeOf = (v: unknown) =>
  v === null || v === undefined ? 'null' : Array.isArray(v) ? 'array' : v instanceof Date ? 'string' : typeof v;

/** Every node of a parsed document with its path (a.b, a[0]), its JSON type and its text, as the CLI writes them. */
export function flattenDocument(root: unknown): ParsedImport {
  const values: HfValue[] = [];
  let error = '';
  const walk = (value: unknown, path: string, depth: number) => {
    if (error) return;
    if (depth > 32) {
      error = `nested deeper than 32 levels at ${path}`;
      return;
    }
    if (values.length >= MAX_IMPORT_VALUES) {
      error = `more than ${MAX_IMPORT_VALUES} values`;
      return;
    }
    const type = typeOf(value);
    const text =
      value instanceof Date
        ? value.toISOString()
        : type === 'number' || type === 'boolean' || type === 'string' || type === 'bigint'
          ? String(value)
          : Array.isArray(value) && typeof value[0] === 'string'
            ? value[0]
            : '';
    if (path) values.push({ key: path, type: type === 'bigint' ? 'number' : type, text });
    if (Array.isArray(value)) value.forEach((child, i) => walk(child, `${path}[${i}]`, depth + 1));
    else if (type === 'object') for (const [key, child] of Object.entries(value as object)) walk(child, childPath(path, key), depth + 1);
  };
  walk(root, '', 0);
  return { rootType: error ? 'invalid' : typeOf(root), error, values, lines: [] };
}

/**
 * Words of each logical line of a shell script (cli/import_parse.hpp shellWords): continuations joined, then
 * shell-quote per line, with variables handed back as ${NAME} for the engine to resolve; comments end the line,
 * operators separate words, a glob is its pattern.
 */
export async function shellWords(text: string): Promise<string[][]> {
  const { parse } = await import('shell-quote');
  const lines: string[][] = [];
  for (const line of text.replace(/\\\r?\n/g, '').split('\n')) {
    const words: string[] = [];
    for (const entry of parse(line, (name: string) => `\${${name}}`)) {
      if (typeof entry === 'string') words.push(entry);
      else if ('comment' in entry) break;
      else if ('op' in entry && entry.op === 'glob') words.push(entry.pattern);
    }
    if (words.length > 0) lines.push(words);
  }
  return lines;
}

/** The text as the syntax the engine chose for its format (Engine.importSyntax). */
export async function parseImport(text: string, syntax: string): Promise<ParsedImport> {
  const failed = (error: unknown): ParsedImport => ({
    rootType: 'invalid',
    error: error instanceof Error ? error.message : String(error),
    values: [],
    lines: [],
  });
  try {
    if (syntax === 'words') return { rootType: 'object', error: '', values: [], lines: await shellWords(text) };
    if (syntax === 'toml') {
      const { parse } = await import('smol-toml');
      return flattenDocument(parse(text));
    }
    if (syntax === 'yaml') {
      const { parse } = await import('yaml');
      return flattenDocument(parse(text));
    }
    return flattenDocument(parseJsonWithPythonConstants(text));
  } catch (error) {
    return failed(error);
  }
}
