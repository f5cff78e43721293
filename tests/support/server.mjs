// A static file server on loopback for the browser tests and the budget script: serves a folder under
// a sub-path, as any static host would, and records every path it was asked for.
import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, resolve } from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * @typedef {object} StaticServer
 * @property {string} url The site's root URL, ending in the base path and a slash.
 * @property {string} origin
 * @property {string[]} requests
 * @property {() => Promise<void>} close
 */

/**
 * @param {string} folder
 * @param {string} [basePath]
 * @param {{ headers?: Record<string, string>, pages?: Record<string, string> }} [options] headers to add to every
 *   file served (a host's CORS or CSP headers); pages: HTML served at absolute paths outside the folder (a wiki
 *   page that embeds the calculator)
 * @returns {Promise<StaticServer>}
 */
export async function serveStatic(folder, basePath = '/', options = {}) {
  const root = resolve(folder);
  const base = basePath.endsWith('/') ? basePath : `${basePath}/`;
  /** @type {string[]} */
  const requests = [];
  const server = createServer((request, response) => {
    let path;
    try {
      path = decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname);
    } catch {
      response.writeHead(400).end();
      return;
    }
    requests.push(path);
    const page = options.pages?.[path];
    if (page !== undefined) {
      response.writeHead(200, { 'content-type': TYPES['.html'], 'cache-control': 'no-store' }).end(page);
      return;
    }
    if (!path.startsWith(base)) {
      response.writeHead(404).end();
      return;
    }
    let file = normalize(join(root, path.slice(base.length)));
    if (!file.startsWith(root)) {
      response.writeHead(403).end();
      return;
    }
    try {
      if (statSync(file).isDirectory()) file = join(file, 'index.html');
      statSync(file);
    } catch {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, {
      ...options.headers,
      'content-type': TYPES[/** @type {keyof typeof TYPES} */ (extname(file))] ?? 'application/octet-stream',
      'cache-control': 'no-store',
    });
    createReadStream(file).pipe(response);
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', () => done(undefined)));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}${base}`,
    origin,
    requests,
    close: () => new Promise((done) => server.close(() => done(undefined))),
  };
}
