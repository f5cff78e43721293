// A model by its Hugging Face Hub id (docs/import.md, "A model by its Hub id"): the id or URL the user typed (or a
// link's hf keys), read into a repository, a revision and a file, checked before anything asks the network. The
// fetch itself is hub-fetch.ts, loaded on the first fetch.
import { HUB_ORIGIN } from './hub-origin';

export { HUB_ORIGIN };
const HUB_HOSTS = new Set(['huggingface.co', 'www.huggingface.co', 'hf.co']);

/** A model repository on the Hub and the revision asked for (a branch, a tag or a commit id). */
export interface HubRef {
  /** `owner/name`, or a legacy `name` without an owner (gpt2). */
  id: string;
  revision: string;
  /** The file's path in the repository: config.json, or another config.json a URL pointed at. */
  file: string;
}

/** What was fetched: the file's text, and the commit it came from (pinned: the Hub said which). */
export interface HubFile {
  ref: HubRef;
  text: string;
  /** The Hub's X-Repo-Commit (40 hex digits), or the revision asked for when the answer did not carry one. */
  commit: string;
  pinned: boolean;
}

export class HubError extends Error {
  constructor(
    readonly kind: 'gated' | 'missing' | 'no-file' | 'no-revision' | 'network' | 'busy' | 'refused' | 'too-large' | 'cancelled',
    message: string,
  ) {
    super(message);
    this.name = 'HubError';
  }
}

// huggingface_hub's validate_repo_id: one or two segments of word characters, '-' and '.', each 1–96 long and
// starting and ending with a word character, no '--' or '..', not ending in '.git'. ASCII only here: the page
// shows what it will fetch, and a look-alike letter must not pass for another owner.
const SEGMENT = /^[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,94}[A-Za-z0-9_])?$/;
// A branch, a tag (refs/pr/N included) or a commit id: what git allows, less what would need care in a link.
const REVISION = /^[A-Za-z0-9_][A-Za-z0-9_./-]{0,127}$/;
export const COMMIT = /^[0-9a-f]{40}$/;
const FIELD = 'Hub model id';
const FORM = 'an id as owner/name (e.g. Qwen/Qwen3-30B-A3B), optionally @revision, or its huggingface.co URL';

function segmentsOk(segments: string[]): boolean {
  return (
    segments.length >= 1 &&
    segments.length <= 2 &&
    segments.every((s) => SEGMENT.test(s) && !s.includes('--') && !s.includes('..')) &&
    !segments[segments.length - 1].endsWith('.git')
  );
}

function revisionOk(revision: string): boolean {
  return REVISION.test(revision) && !revision.includes('..') && !revision.endsWith('/') && !revision.endsWith('.lock');
}

function refused(why: string): HubError {
  return new HubError('refused', `${FIELD}: ${why}; expected ${FORM}`);
}

/** The repository and revision `text` names (an id, id@revision, or a huggingface.co URL); a HubError says why not. */
export function parseHubRef(input: string): HubRef {
  const text = input.trim();
  if (text.length === 0) throw refused('empty');
  if (text.length > 512) throw refused(`${text.length} characters, more than any id or URL of the Hub (512)`);
  if (/^[a-z][a-z0-9+.-]*:/i.test(text) || text.startsWith('//') || /^(www\.)?(huggingface|hf)\.co\//i.test(text)) {
    let url: URL;
    try {
      url = new URL(/^[a-z][a-z0-9+.-]*:/i.test(text) ? text : `https://${text.replace(/^\/\//, '')}`);
    } catch {
      throw refused('not a URL');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refused(`a ${url.protocol} link`);
    if (!HUB_HOSTS.has(url.hostname.toLowerCase())) throw refused(`${url.hostname} is not the Hub (huggingface.co)`);
    let parts: string[];
    try {
      parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    } catch {
      throw refused('its path is not valid percent-encoding');
    }
    if (parts[0] === 'datasets' || parts[0] === 'spaces') throw refused(`a link to ${parts[0]}, not to a model`);
    // owner/name[/tree|blob|resolve|raw/revision[/path]]: the revision is one segment (a slash in it is %2F).
    const at = parts.findIndex((p) => ['tree', 'blob', 'resolve', 'raw', 'commit'].includes(p));
    const idParts = at === -1 ? parts : parts.slice(0, at);
    if (!segmentsOk(idParts)) throw refused(`the link names no model repository (${url.pathname})`);
    const revision = at === -1 ? 'main' : parts[at + 1];
    if (revision === undefined || !revisionOk(revision)) throw refused('the link names no revision the Hub would accept');
    const path = at === -1 ? [] : parts.slice(at + 2);
    const file = path.length > 0 && ['blob', 'resolve', 'raw'].includes(parts[at]) ? path.join('/') : 'config.json';
    if (!/(^|\/)config\.json$/.test(file) || !path.every((p) => SEGMENT.test(p)))
      throw refused(`the link points at ${file}, not at a config.json`);
    return { id: idParts.join('/'), revision, file };
  }
  const hash = text.lastIndexOf('@');
  const id = hash === -1 ? text : text.slice(0, hash);
  const revision = hash === -1 ? 'main' : text.slice(hash + 1);
  if (!segmentsOk(id.split('/'))) throw refused(`“${id.length > 60 ? `${id.slice(0, 60)}…` : id}” is not a repository id`);
  if (!revisionOk(revision)) throw refused(`“${revision.slice(0, 60)}” is not a revision (a branch, a tag or a commit id)`);
  return { id, revision, file: 'config.json' };
}

/**
 * The Hub file a link names (`hf`, `hf_revision`, `hf_file`), checked as a typed id is: a link is anyone's text.
 * `pinned` when the revision is a commit id.
 */
export function hubRefFromLink(id: string, revision: string | null, file: string | null): HubRef & { pinned: boolean } {
  const ref = parseHubRef(`${id}@${revision ?? 'main'}`);
  const path = file ?? 'config.json';
  if (!/(^|\/)config\.json$/.test(path) || !path.split('/').every((p) => SEGMENT.test(p)))
    throw refused(`hf_file “${path.slice(0, 60)}” is not a config.json`);
  return { ...ref, file: path, pinned: COMMIT.test(ref.revision) };
}

/** Whether `text`, pasted where a file goes, is a Hub id or URL rather than a file (one line, no JSON, no spaces). */
export function looksLikeHubRef(text: string): boolean {
  const trimmed = text.trim();
  if (trimmed.length === 0 || /\s/.test(trimmed)) return false;
  try {
    parseHubRef(trimmed);
  } catch {
    return false;
  }
  return trimmed.includes('/') || /^(https?:)?\/\//i.test(trimmed);
}

/** The URL the file is fetched from (the Hub's resolve endpoint, as huggingface_hub builds it). */
export function resolveUrl(ref: HubRef): string {
  return `${HUB_ORIGIN}/${ref.id}/resolve/${encodeURIComponent(ref.revision)}/${ref.file}`;
}

/** The file's page on the Hub, at a revision: where a user signs in and reads it. */
export function blobUrl(ref: HubRef, revision = ref.revision): string {
  return `${HUB_ORIGIN}/${ref.id}/blob/${encodeURIComponent(revision)}/${ref.file}`;
}
