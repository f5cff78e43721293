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
/** Paths and values past this many UTF-8 bytes once flattened are refused (membudget/io/json.hpp kMaxFlatBytes). */
export const MAX_FLAT_BYTES = 64 * 1024 * 1024;

/** The UTF-8 length of a string, without encoding it. */
function utf8Bytes(s: string): number {
  let bytes = s.length;
  for (let i = 0; i < s.length; ++i) {
    const c = s.charCodeAt(i);
    if (c >= 0x800)
      bytes += c >= 0xd800 && c <= 0xdbff ? 1 : 2; // a surrogate pair is 4 bytes over 2 units
    else if (c >= 0x80) bytes += 1;
  }
  return bytes;
}

/** An unquoted YAML scalar as written, which the engine resolves (cli/import_parse.cpp hands over the same). */
export class Plain {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const typeOf = (v: unknown) =>
  v === null || v === undefined
    ? 'null'
    : Array.isArray(v)
      ? 'array'
      : v instanceof Plain
        ? 'plain'
        : v instanceof Map
          ? 'object'
          : v instanceof Date
            ? 'string'
            : typeof v;

/** Every node of a parsed document with its path (a.b, a[0]), its JSON type and its text, as the CLI writes them. */
export function flattenDocument(root: unknown): ParsedImport {
  const values: HfValue[] = [];
  let error = '';
  let bytes = 0; // the paths' and texts' UTF-8 bytes so far, as the CLI counts them
  const walk = (value: unknown, path: string, depth: number) => {
    if (error) return;
    if (depth > 32) {
      error = `nested deeper than 32 levels at ${path}`;
      return;
    }
    const type = typeOf(value);
    const text =
      value instanceof Date
        ? value.toISOString()
        : type === 'number' || type === 'boolean' || type === 'string' || type === 'bigint' || type === 'plain'
          ? String(value)
          : Array.isArray(value) && (typeof value[0] === 'string' || value[0] instanceof Plain)
            ? String(value[0])
            : '';
    if (path) {
      // A long key repeated under many values makes every path copy it: bounded by what it flattens to.
      bytes += utf8Bytes(path) + utf8Bytes(text);
      if (values.length >= MAX_IMPORT_VALUES) error = `more than ${MAX_IMPORT_VALUES} values`;
      else if (bytes > MAX_FLAT_BYTES) error = `its keys' paths and values pass ${MAX_FLAT_BYTES / 2 ** 20} MiB once flattened`;
      if (error) return;
      values.push({ key: path, type: type === 'bigint' ? 'number' : type, text });
    }
    if (Array.isArray(value)) value.forEach((child, i) => walk(child, `${path}[${i}]`, depth + 1));
    else if (value instanceof Map) {
      // OmegaConf's loader refuses a key given twice in one mapping (construct_mapping), as the CLI says.
      const keys = new Set<string>();
      for (const key of value.keys()) {
        if (keys.has(String(key)))
          throw new Error(`found duplicate key ${String(key)}${path ? ` in ${path}` : ''} (OmegaConf refuses a key given twice)`);
        keys.add(String(key));
      }
      for (const [key, child] of value) walk(child, childPath(path, String(key)), depth + 1);
    } else if (type === 'object') for (const [key, child] of Object.entries(value as object)) walk(child, childPath(path, key), depth + 1);
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
  return (await shellScript(text)).lines;
}

/** A here-document: the file its line writes (cli/import_parse.hpp HereDocument) and its body. */
export interface HereDocument {
  file: string;
  body: string;
}

/** The words of each line (shellWords) and the script's here-documents in order, as cli/import_parse.cpp scanShell. */
export async function shellScript(text: string): Promise<{ lines: string[][]; docs: HereDocument[] }> {
  const { parse } = await import('shell-quote');
  const words = (line: string): string[] => {
    const out: string[] = [];
    for (const entry of parse(line, (name: string) => `\${${name}}`)) {
      if (typeof entry === 'string') out.push(entry);
      else if ('comment' in entry) break;
      else if ('op' in entry && entry.op === 'glob') out.push(entry.pattern);
    }
    return out;
  };
  const lines: string[][] = [];
  const docs: HereDocument[] = [];
  const pending: [string, boolean, HereDocument][] = []; // here-documents whose bodies come next, in order
  for (const raw of text.replace(/\\\r?\n/g, '').split('\n')) {
    if (pending.length > 0) {
      // A here-document's body: not words, kept up to its delimiter line.
      let line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
      if (pending[0]![1]) line = line.replace(/^\t+/, '');
      if (line === pending[0]![0]) pending.shift();
      else pending[0]![2].body += `${line}\n`;
      continue;
    }
    for (const [delimiter, dash] of hereDocs(raw)) {
      const doc = { file: redirectTarget(raw, words), body: '' };
      docs.push(doc);
      pending.push([delimiter, dash, doc]);
    }
    const lineWords = words(raw);
    if (lineWords.length > 0) lines.push(lineWords);
  }
  return { lines, docs };
}

/**
 * The positions of a line's characters that bash reads as syntax: outside single and double quotes, not escaped by a
 * backslash, and before a comment (a # at the start of a word). cli/import_parse.cpp unquotedPositions is the CLI's twin.
 */
function unquotedPositions(line: string): number[] {
  const out: number[] = [];
  let quote = '';
  for (let i = 0; i < line.length; ++i) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '\\') {
      ++i;
    } else if (c === "'" || c === '"') {
      quote = c;
    } else if (c === '#' && (i === 0 || line[i - 1] === ' ' || line[i - 1] === '\t')) {
      break;
    } else {
      out.push(i);
    }
  }
  return out;
}

/**
 * The file a line's output goes to: the word after its first `>` or `>>` outside quotes (not a descriptor's `>&`), or
 * after `tee`; '' where there is none. cli/import_parse.cpp redirectTarget is the CLI's twin.
 */
function redirectTarget(line: string, words: (line: string) => string[]): string {
  for (const i of unquotedPositions(line)) {
    const c = line[i]!;
    if (c !== '>') continue;
    let j = i + 1;
    if (line[j] === '>' || line[j] === '|') ++j;
    if (line[j] === '&') continue; // 2>&1
    while (line[j] === ' ' || line[j] === '\t') ++j;
    return words(line.slice(j))[0] ?? '';
  }
  const all = words(line);
  for (let i = 0; i + 1 < all.length; ++i)
    if (all[i] === 'tee' || all[i]!.endsWith('/tee'))
      for (let j = i + 1; j < all.length; ++j) if (all[j] && !all[j]!.startsWith('-')) return all[j]!;
  return '';
}

/**
 * The delimiters of the here-documents a line opens, outside quotes (<<WORD, <<-WORD, <<'WORD', <<"WORD"; not a <<<
 * here-string), each with whether its body's leading tabs are stripped: the lines that follow, up to each delimiter,
 * are the command's input, not commands. cli/import_parse.cpp hereDocs is the CLI's twin.
 */
function hereDocs(line: string): [string, boolean][] {
  const out: [string, boolean][] = [];
  let next = 0; // where the last operator's word ended
  for (const i of unquotedPositions(line)) {
    if (i < next || line[i] !== '<' || line[i + 1] !== '<') continue;
    if (line[i + 2] === '<') {
      // A here-string: its word is on this line.
      next = i + 3;
      continue;
    }
    let j = i + 2;
    const dash = line[j] === '-';
    if (dash) ++j;
    while (line[j] === ' ' || line[j] === '\t') ++j;
    let word = '';
    if (line[j] === "'" || line[j] === '"') {
      const close = line.indexOf(line[j]!, j + 1);
      word = line.slice(j + 1, close === -1 ? line.length : close);
      j = close === -1 ? line.length : close + 1;
    } else {
      while (j < line.length && !/[ \t\r|&;<>()]/.test(line[j]!)) word += line[j++];
    }
    if (word) out.push([word, dash]);
    next = j;
  }
  return out;
}

/**
 * A YAML text with every unquoted scalar as written (type "plain"), for the engine to read as torchtune's OmegaConf
 * loader does (engine/src/formats/omegaconf.hpp), as the CLI hands over yaml-cpp's; quoted ones are strings
 * (failsafe). Like OmegaConf, a key given twice and a second document are refused.
 */
async function parseYaml(text: string): Promise<unknown> {
  const { parse } = await import('yaml');
  const plain = { tag: 'tag:membudget.invalid,2026:plain', default: true, test: /^[\s\S]*$/, resolve: (t: string) => new Plain(t) };
  return parse(text, { schema: 'failsafe', customTags: [plain], mapAsMap: true, uniqueKeys: false }) as unknown;
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
    if (syntax === 'yaml') return flattenDocument(await parseYaml(text));
    if (syntax === 'words_yaml') {
      // The words, and each here-document as heredocs[i].file and heredocs[i].yaml (absent where its YAML does not parse
      // or holds a key twice), as cli/import_parse.cpp hands them over.
      const { lines, docs } = await shellScript(text);
      const entries: Map<string, unknown>[] = [];
      for (const doc of docs) {
        const entry = new Map<string, unknown>([['file', doc.file]]);
        try {
          const root = await parseYaml(doc.body);
          flattenDocument(root);
          entry.set('yaml', root);
        } catch {
          // not YAML: the file is named, its options are not read
        }
        entries.push(entry);
      }
      const flat = flattenDocument(entries.length > 0 ? new Map([['heredocs', entries]]) : new Map());
      return { ...flat, rootType: flat.error ? 'invalid' : 'object', lines };
    }
    return flattenDocument(parseJsonWithPythonConstants(text));
  } catch (error) {
    return failed(error);
  }
}
