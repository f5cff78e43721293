// The config.json of a model on the Hub, fetched (docs/import.md, "A model by its Hub id"): from the one origin
// the page's Content-Security-Policy lets it connect to besides its own (hub-origin.ts), with no credentials and no
// referrer, so a gated or private model is answered as the Hub answers anyone and the message says to sign in
// there and paste the file. The page loads this module on the first fetch. The text then goes through the same
// reader as a pasted file.
import { blobUrl, COMMIT, HubError, resolveUrl, type HubFile, type HubRef } from './hub';
import { MAX_INPUT_BYTES, tooLargeMessage } from './limits';
import { readBounded } from './read-bounded';

/** The Hub's own explanation, as text: control characters out, at most 200 characters. */
function hubSays(response: Response): string {
  const control = (c: string) => c.charCodeAt(0) < 0x20 || (c.charCodeAt(0) >= 0x7f && c.charCodeAt(0) < 0xa0);
  const said = [...(response.headers.get('x-error-message') ?? '')]
    .map((c) => (control(c) ? ' ' : c))
    .join('')
    .trim();
  return said ? ` (the Hub says: ${said.length > 200 ? `${said.slice(0, 200)}…` : said})` : '';
}

/** How long the Hub may take to answer before the page says it did not. */
export const HUB_TIMEOUT_MS = 30_000;

/**
 * Fetches the config.json `ref` names. The error codes are the Hub's (huggingface_hub utils/_http.py
 * hf_raise_for_status): GatedRepo, RepoNotFound (also a bare 401: the Hub answers a private or missing repository
 * alike), RevisionNotFound, EntryNotFound.
 */
export async function fetchHubConfig(ref: HubRef, signal?: AbortSignal): Promise<HubFile> {
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), HUB_TIMEOUT_MS);
  const abort = () => timeout.abort();
  signal?.addEventListener('abort', abort);
  const file = `${ref.id}’s ${ref.file}`;
  const paste = `open ${blobUrl(ref)} and paste the file here`;
  try {
    let response: Response;
    try {
      response = await fetch(resolveUrl(ref), {
        credentials: 'omit',
        referrerPolicy: 'no-referrer',
        redirect: 'follow',
        signal: timeout.signal,
      });
    } catch {
      if (signal?.aborted) throw new HubError('cancelled', `Fetching ${file} was cancelled`);
      if (timeout.signal.aborted)
        throw new HubError('network', `huggingface.co did not answer in ${HUB_TIMEOUT_MS / 1000} s: try again, or ${paste}`);
      throw new HubError(
        'network',
        `Could not reach huggingface.co (no network, or a proxy, firewall or extension blocked it): download ${file} and paste it here`,
      );
    }
    if (!response.ok) {
      const code = response.headers.get('x-error-code') ?? '';
      const says = hubSays(response);
      if (code === 'GatedRepo' || (response.status === 403 && code === ''))
        throw new HubError(
          'gated',
          `${ref.id} is gated on the Hub: sign in on the Hub, accept its terms, then ${paste} (the page sends no sign-in)${says}`,
        );
      if (code === 'RevisionNotFound') throw new HubError('no-revision', `${ref.id} has no revision “${ref.revision}” on the Hub${says}`);
      if (code === 'EntryNotFound' || (response.status === 404 && code !== 'RepoNotFound'))
        throw new HubError(
          'no-file',
          `${ref.id} has no ${ref.file} at ${ref.revision} (a GGUF-only or adapter repository has none): paste the config.json of its base model${says}`,
        );
      if (code === 'RepoNotFound' || response.status === 401 || response.status === 404)
        throw new HubError(
          'missing',
          `No public model ${ref.id} on the Hub: check the id; if it is private, sign in on the Hub, then ${paste}${says}`,
        );
      if (response.status === 429)
        throw new HubError('busy', `The Hub refused: too many requests (429); try again in a minute, or ${paste}`);
      throw new HubError('busy', `The Hub answered ${response.status}${says}: try again, or ${paste}`);
    }
    const declared = Number(response.headers.get('content-length') ?? '0');
    if (declared > MAX_INPUT_BYTES) throw tooLargeError(file, declared);
    const text = await readBody(response, file);
    // The commit: the Hub's X-Repo-Commit, or where its redirect for a small file led
    // (/api/resolve-cache/models/{id}/{commit}/{file}), whose answer may not repeat the header.
    const cached = new RegExp(`/api/resolve-cache/models/${ref.id.replace(/[.]/g, '\\.')}/([0-9a-f]{40})/`).exec(response.url);
    const commit = response.headers.get('x-repo-commit') ?? cached?.[1] ?? '';
    const pinned = COMMIT.test(commit);
    return { ref, text, commit: pinned ? commit : ref.revision, pinned };
  } catch (error) {
    if (error instanceof HubError) throw error;
    if (signal?.aborted) throw new HubError('cancelled', `Fetching ${file} was cancelled`);
    throw new HubError('network', `The answer from huggingface.co broke off: try again, or ${paste}`);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', abort);
  }
}

function tooLargeError(file: string, bytes: number): HubError {
  return new HubError('too-large', tooLargeMessage(file, bytes));
}

// The body, read no further than the inputs' limit whatever the Content-Length said.
async function readBody(response: Response, file: string): Promise<string> {
  if (!response.body) return response.text();
  return new TextDecoder().decode(await readBounded(response.body, MAX_INPUT_BYTES, (bytes) => tooLargeError(file, bytes)));
}
