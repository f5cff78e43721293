// Python's bare Infinity and NaN in JSON documents (config.json files written by json.dump), for every JSON
// reader of the page: the engine's config.json import and the import dialog's.

/**
 * Python's json module writes float('inf') and float('nan') as the bare words Infinity, -Infinity and NaN, which
 * JSON has not and JSON.parse refuses. Outside strings, each such word where a value starts becomes the string of
 * itself, as the CLI's reader does (engine/src/io/json.cpp pythonJsonConstants); undefined when there is none.
 */
export function pythonJsonConstants(text: string): string | undefined {
  let out = '';
  let inString = false;
  let changed = false;
  let previous = '[';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      out += ch;
      if (ch === '\\' && i + 1 < text.length) out += text[++i];
      else if (ch === '"') inString = false;
      continue;
    }
    const word =
      previous === '[' || previous === ',' || previous === ':'
        ? ['-Infinity', 'Infinity', 'NaN'].find((w) => text.startsWith(w, i) && !/[A-Za-z0-9_]/.test(text[i + w.length] ?? ''))
        : undefined;
    if (word) {
      out += `"${word}"`;
      i += word.length - 1;
      previous = '"';
      changed = true;
      continue;
    }
    out += ch;
    if (ch === '"') inString = true;
    if (ch !== ' ' && ch !== '\t' && ch !== '\n' && ch !== '\r') previous = ch;
  }
  return changed ? out : undefined;
}

/** A string with each lone surrogate (which Python's json keeps) as U+FFFD, as the CLI's reader writes it. */
function wellFormed(s: string): string {
  return s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

/**
 * What Python's json reads and the CLI's nlohmann/json refuses, made as the CLI's reader makes it
 * (engine/src/io/json.cpp pythonJsonConstants): a number past a double's range (1e400, Infinity to JSON.parse) as
 * the string Infinity, a lone surrogate in a string or a key as U+FFFD.
 */
function pythonReviver(_key: string, value: unknown): unknown {
  if (typeof value === 'number' && !Number.isFinite(value)) return value > 0 ? 'Infinity' : '-Infinity';
  if (typeof value === 'string') return wellFormed(value);
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).some((k) => k !== wellFormed(k)))
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [wellFormed(k), v]));
  return value;
}

/** JSON.parse, and where it fails, once more with Python's Infinity/NaN as strings (pythonJsonConstants). */
export function parseJsonWithPythonConstants(text: string): unknown {
  try {
    return JSON.parse(text, pythonReviver);
  } catch (error) {
    const rewritten = pythonJsonConstants(text);
    if (rewritten === undefined) throw error;
    return JSON.parse(rewritten, pythonReviver);
  }
}
