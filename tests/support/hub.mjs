// A stand-in for the Hugging Face Hub on loopback, for the page's "load a model by its Hub id" (web/src/hub.ts):
// the resolve endpoint at the Hub's paths, answering as the Hub answers a request without credentials. A public
// repository's file is a 307 to /api/resolve-cache/models/… (as huggingface.co answers small files now) or, for a
// repository marked `direct`, the file itself; both carry X-Repo-Commit. A gated repository
// is 401 with X-Error-Code GatedRepo, a missing one 401 RepoNotFound (the Hub does not tell a private repository
// from a missing one), a missing revision 404 RevisionNotFound, a missing file 404 EntryNotFound, with the
// X-Error-Message texts huggingface_hub's hf_raise_for_status reads. CORS as the Hub sends it: the Origin echoed,
// and X-Repo-Commit, X-Error-Code and X-Error-Message exposed. Every path asked for is recorded.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';

const EXPOSED =
  'X-Repo-Commit,X-Request-Id,X-Error-Code,X-Error-Message,X-Total-Count,ETag,Link,Accept-Ranges,Content-Range,X-Linked-Size,X-Linked-ETag,X-Xet-Hash';

/**
 * @typedef {{ text: string, direct?: boolean, gated?: boolean, revisions?: string[] }} Repository
 * @typedef {{ origin: string, requests: string[], commitOf(id: string): string, close(): Promise<void> }} StandInHub
 */

/**
 * @param {Record<string, Repository>} repositories by id (owner/name)
 * @returns {Promise<StandInHub>}
 */
export async function serveHub(repositories) {
  /** @type {string[]} */
  const requests = [];
  // A repository's commit: the git blob id of its config.json, so that a change of the file is a new commit.
  const commitOf = (/** @type {string} */ id) =>
    createHash('sha1')
      .update(`blob ${Buffer.byteLength(repositories[id].text)}\0${repositories[id].text}`)
      .digest('hex');
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    requests.push(url.pathname);
    const cors = {
      'access-control-allow-origin': request.headers.origin ?? '*',
      'access-control-expose-headers': EXPOSED,
      vary: 'Origin',
    };
    const fail = (/** @type {number} */ status, /** @type {string} */ code, /** @type {string} */ message) =>
      response
        .writeHead(status, { ...cors, 'content-type': 'application/json', 'x-error-code': code, 'x-error-message': message })
        .end(JSON.stringify({ error: message }));
    const serveFile = (/** @type {string} */ id, /** @type {Record<string, string>} */ extra) => {
      const text = repositories[id].text;
      response
        .writeHead(200, {
          ...cors,
          ...extra,
          'content-type': 'text/plain; charset=utf-8',
          'content-length': String(Buffer.byteLength(text)),
          etag: `"${createHash('sha1').update(text).digest('hex')}"`,
        })
        .end(text);
    };
    let parts;
    try {
      parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    } catch {
      return fail(400, 'BadRequest', 'Invalid path');
    }
    // /api/resolve-cache/models/{owner}/{name}/{commit}/{file}: where a 307 from the resolve endpoint points.
    if (parts[0] === 'api' && parts[1] === 'resolve-cache' && parts[2] === 'models') {
      const id = parts.slice(3, 5).join('/');
      if (repositories[id] && parts[5] === commitOf(id) && parts.slice(6).join('/') === 'config.json')
        return serveFile(id, { 'x-repo-commit': parts[5] });
      return fail(404, 'EntryNotFound', 'Entry not found');
    }
    // /{owner}/{name}/resolve/{revision}/{file}
    const at = parts.indexOf('resolve');
    if (at < 1 || at > 2) return fail(404, 'RepoNotFound', 'Repository not found');
    const id = parts.slice(0, at).join('/');
    const revision = parts[at + 1] ?? '';
    const file = parts.slice(at + 2).join('/');
    const repository = repositories[id];
    if (!repository) return fail(401, 'RepoNotFound', 'Repository not found');
    if (repository.gated)
      return fail(
        401,
        'GatedRepo',
        `Access to model ${id} is restricted. You must have access to it and be authenticated to access it. Please log in.`,
      );
    const commit = commitOf(id);
    if (![...(repository.revisions ?? ['main']), commit].includes(revision))
      return fail(404, 'RevisionNotFound', `Invalid rev id: ${revision}`);
    if (file !== 'config.json') return fail(404, 'EntryNotFound', 'Entry not found');
    if (repository.direct) return serveFile(id, { 'x-repo-commit': commit });
    response.writeHead(307, { ...cors, location: `/api/resolve-cache/models/${id}/${commit}/config.json`, 'x-repo-commit': commit }).end();
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', () => done(undefined)));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    commitOf,
    close: () => new Promise((done) => server.close(() => done(undefined))),
  };
}
