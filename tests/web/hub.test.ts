// The Hub id reader and the fetch's answers (web/src/hub.ts, web/src/hub-fetch.ts) under Node: every way a user names a model (an id,
// id@revision, the Hub's links), what is refused before any request, generated hostile text, and each answer of
// the Hub mapped to its message, with the body read no further than the inputs' limit.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HubError, hubRefFromLink, looksLikeHubRef, parseHubRef, resolveUrl } from '../../web/src/hub';
import { fetchHubConfig } from '../../web/src/hub-fetch';
import { MAX_INPUT_BYTES } from '../../web/src/limits';

const COMMIT = '0123456789abcdef0123456789abcdef01234567';

describe('parseHubRef', () => {
  it.each([
    ['Qwen/Qwen3-30B-A3B', 'Qwen/Qwen3-30B-A3B', 'main', 'config.json'],
    ['  gpt2  ', 'gpt2', 'main', 'config.json'],
    ['Qwen/Qwen3-8B@v1.0', 'Qwen/Qwen3-8B', 'v1.0', 'config.json'],
    [`google/gemma-2-9b@${COMMIT}`, 'google/gemma-2-9b', COMMIT, 'config.json'],
    ['google/gemma-2-9b@refs/pr/7', 'google/gemma-2-9b', 'refs/pr/7', 'config.json'],
    ['https://huggingface.co/Qwen/Qwen3-30B-A3B', 'Qwen/Qwen3-30B-A3B', 'main', 'config.json'],
    ['huggingface.co/Qwen/Qwen3-30B-A3B?library=transformers#x', 'Qwen/Qwen3-30B-A3B', 'main', 'config.json'],
    ['https://hf.co/openai/gpt-oss-20b/tree/main', 'openai/gpt-oss-20b', 'main', 'config.json'],
    ['https://huggingface.co/openai/gpt-oss-20b/blob/main/config.json', 'openai/gpt-oss-20b', 'main', 'config.json'],
    [`https://huggingface.co/a/b/resolve/${COMMIT}/config.json`, 'a/b', COMMIT, 'config.json'],
    ['https://huggingface.co/a/b/blob/refs%2Fpr%2F3/text_encoder/config.json', 'a/b', 'refs/pr/3', 'text_encoder/config.json'],
  ])('%s', (input, id, revision, file) => {
    expect(parseHubRef(input)).toEqual({ id, revision, file });
  });

  it.each([
    ['', 'empty'],
    ['a/b/c', 'is not a repository id'],
    ['../etc/passwd', 'is not a repository id'],
    ['Qwen--x/y', 'is not a repository id'],
    ['owner/model.git', 'is not a repository id'],
    ['Qwen/Qwen3 8B', 'is not a repository id'],
    ['Qwеn/Qwen3-8B', 'is not a repository id'], // a Cyrillic е
    ['Qwen/Qwen3-8B@', 'is not a revision'],
    ['Qwen/Qwen3-8B@a..b', 'is not a revision'],
    ['https://example.com/Qwen/Qwen3-8B', 'is not the Hub'],
    ['https://huggingface.co.evil.example/Qwen/Qwen3-8B', 'is not the Hub'],
    ['javascript:alert(1)', 'a javascript: link'],
    ['file:///etc/passwd', 'a file: link'],
    ['https://huggingface.co/datasets/squad', 'not to a model'],
    ['https://huggingface.co/a/b/blob/main/model.safetensors', 'not at a config.json'],
    ['https://huggingface.co/a/b/blob/main/sub%20dir/config.json', 'not at a config.json'],
    ['https://huggingface.co/%E0%A4%A', 'percent-encoding'],
    ['x'.repeat(600), 'more than any id'],
  ])('refuses %s', (input, why) => {
    expect(() => parseHubRef(input)).toThrow(HubError);
    expect(() => parseHubRef(input)).toThrow(why);
    expect(() => parseHubRef(input)).toThrow(/^Hub model id: .*; expected an id as owner\/name/);
  });

  it('on generated text, gives an id and revision the Hub would take, or a HubError, and nothing else', () => {
    // A small deterministic generator over the characters that matter: separators, dots, '@', '%', URL parts.
    const pieces = [
      'a',
      'Z9',
      '_',
      '-',
      '.',
      '..',
      '/',
      '@',
      '%2F',
      '%',
      ':',
      '//',
      'https://',
      'huggingface.co',
      'hf.co',
      ' ',
      '\u0000',
      'é',
      'blob',
      'tree',
      'resolve',
      'main',
      'config.json',
      '?',
      '#',
    ];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let n = 0; n < 5000; n++) {
      const text = Array.from({ length: 1 + (next() % 12) }, () => pieces[next() % pieces.length]).join('');
      try {
        const ref = parseHubRef(text);
        expect(ref.id).toMatch(/^([A-Za-z0-9_.-]+\/)?[A-Za-z0-9_.-]+$/);
        expect(ref.id).not.toMatch(/\.\.|--/);
        expect(ref.revision).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_./-]*$/);
        expect(ref.revision).not.toContain('..');
        expect(ref.file).toMatch(/(^|\/)config\.json$/);
        expect(resolveUrl(ref).startsWith(`https://huggingface.co/${ref.id}/resolve/`)).toBe(true);
      } catch (error) {
        expect(error).toBeInstanceOf(HubError);
      }
    }
  });

  it('tells an id or link pasted where a file goes from a file', () => {
    expect(looksLikeHubRef('Qwen/Qwen3-8B')).toBe(true);
    expect(looksLikeHubRef('https://huggingface.co/Qwen/Qwen3-8B')).toBe(true);
    expect(looksLikeHubRef('{"model_type": "llama"}')).toBe(false);
    expect(looksLikeHubRef('torchrun --nproc_per_node 8 train.py')).toBe(false);
    // A bare word is a legacy id to the Hub, but pasted as a file it is more likely a mistake: read as text.
    expect(looksLikeHubRef('gpt2')).toBe(false);
  });

  it('reads a link’s Hub keys as strictly as a typed id', () => {
    expect(hubRefFromLink('Qwen/Qwen2-7B', COMMIT, null)).toEqual({
      id: 'Qwen/Qwen2-7B',
      revision: COMMIT,
      file: 'config.json',
      pinned: true,
    });
    expect(hubRefFromLink('Qwen/Qwen2-7B', null, null).pinned).toBe(false);
    expect(() => hubRefFromLink('https://evil.example/x', null, null)).toThrow(HubError);
    expect(() => hubRefFromLink('Qwen/Qwen2-7B', 'main', '../secrets.json')).toThrow('is not a config.json');
  });
});

describe('fetchHubConfig', () => {
  afterEach(() => vi.unstubAllGlobals());
  const ref = { id: 'Qwen/Qwen2-7B', revision: 'main', file: 'config.json' };
  const answer = (status: number, headers: Record<string, string>, body: BodyInit | null = null) =>
    vi.fn(async () => new Response(body, { status, headers }));

  it('asks the resolve endpoint without credentials or referrer, and pins the commit the Hub names', async () => {
    const fetch = answer(200, { 'x-repo-commit': COMMIT }, '{"model_type":"qwen2"}');
    vi.stubGlobal('fetch', fetch);
    const file = await fetchHubConfig(ref);
    expect(file).toEqual({ ref, text: '{"model_type":"qwen2"}', commit: COMMIT, pinned: true });
    expect(fetch).toHaveBeenCalledWith(
      'https://huggingface.co/Qwen/Qwen2-7B/resolve/main/config.json',
      expect.objectContaining({ credentials: 'omit', referrerPolicy: 'no-referrer' }),
    );
  });

  it('keeps the revision asked for, said as not pinned, when the Hub names no commit', async () => {
    vi.stubGlobal('fetch', answer(200, {}, '{}'));
    expect(await fetchHubConfig(ref)).toMatchObject({ commit: 'main', pinned: false });
  });

  it.each([
    [401, 'GatedRepo', 'gated', 'is gated on the Hub'],
    [403, '', 'gated', 'is gated on the Hub'],
    [401, 'RepoNotFound', 'missing', 'No public model Qwen/Qwen2-7B'],
    [401, '', 'missing', 'No public model'],
    [404, 'RevisionNotFound', 'no-revision', 'has no revision “main”'],
    [404, 'EntryNotFound', 'no-file', 'has no config.json at main'],
    [429, '', 'busy', 'too many requests'],
    [502, '', 'busy', 'The Hub answered 502'],
  ])('%i %s: %s', async (status, code, kind, says) => {
    vi.stubGlobal('fetch', answer(status, code ? { 'x-error-code': code, 'x-error-message': 'said\u0007 by the Hub' } : {}));
    const error = await fetchHubConfig(ref).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HubError);
    expect((error as HubError).kind).toBe(kind);
    expect((error as HubError).message).toContain(says);
    // The Hub's own text, if any, without its control characters.
    expect([...(error as HubError).message].every((c) => c.charCodeAt(0) >= 0x20)).toBe(true);
  });

  it('says when there is no network', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Promise.reject(new TypeError('Failed to fetch'))),
    );
    await expect(fetchHubConfig(ref)).rejects.toMatchObject({ kind: 'network' });
  });

  it('reads no more than the limit, whatever the Content-Length says', async () => {
    const chunk = new Uint8Array(1024 * 1024).fill(0x20);
    let sent = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    vi.stubGlobal('fetch', answer(200, { 'content-length': '10' }, endless));
    await expect(fetchHubConfig(ref)).rejects.toMatchObject({ kind: 'too-large' });
    expect(sent).toBeLessThanOrEqual(MAX_INPUT_BYTES + 2 * chunk.byteLength);
    vi.stubGlobal('fetch', answer(200, { 'content-length': String(MAX_INPUT_BYTES + 1) }, '{}'));
    await expect(fetchHubConfig(ref)).rejects.toMatchObject({ kind: 'too-large' });
  });
});
