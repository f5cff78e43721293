import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import { viteSingleFile } from 'vite-plugin-singlefile';
import { HUB_ORIGIN } from './web/src/hub-origin.ts';

// Two builds from one page: `dist/` for any static server under any sub-path (relative base), and with
// SINGLE_FILE=1 one self-contained HTML file (scripts, styles and the wasm inlined) to open from disk.
const singleFile = process.env.SINGLE_FILE === '1';

// Starts the downloads of the page's wasm module and of its data file (web/src/wasm-data.ts) with the HTML instead
// of after the script has run.
function preloadWasm(): Plugin {
  return {
    name: 'membudget-preload-wasm',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(_html, context) {
        const names = Object.keys(context.bundle ?? {});
        // The page's own module, never the planner's (membudget-planner-<hash>.wasm, which the worker loads on
        // demand): the bundle lists them in no set order.
        const wasm = names.find((name) => /(^|\/)membudget-[^/]+\.wasm$/.test(name) && !name.includes('membudget-planner-'));
        const data = names.find((name) => /(^|\/)membudget-data-[^/]+\.bin$/.test(name));
        if (!wasm || !data) throw new Error("membudget: the bundle lacks the page's wasm module or its data file");
        const preload = (href: string, type: string) => ({
          tag: 'link',
          attrs: { rel: 'preload', href: `./${href}`, as: 'fetch', type, crossorigin: 'anonymous' },
          injectTo: 'head' as const,
        });
        return [preload(wasm, 'application/wasm'), preload(data, 'application/octet-stream')];
      },
    },
  };
}

// The Content-Security-Policy (docs/page.md, Content-Security-Policy). The site loads its own script, stylesheet
// and .wasm and nothing else: no inline script or style, WebAssembly compiled under 'wasm-unsafe-eval' (not
// 'unsafe-eval'), no other origin but the Hub for connect-src (the config.json of a model the user names,
// web/src/hub.ts), and Trusted Types, so that no string can reach an HTML or script sink.
// The one Trusted Types policy, membudget-worker, admits only the planner worker's own URL (planner-view.ts).
// frame-ancestors stays open on purpose: the page is made to be embedded (and a <meta> could not set it).
const CSP_LOCKS = ["base-uri 'none'", "form-action 'none'", "require-trusted-types-for 'script'", 'trusted-types membudget-worker'];
export const SITE_CSP = [
  "default-src 'none'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  `connect-src 'self' ${HUB_ORIGIN}`,
  "img-src 'self' data:",
  "manifest-src 'self'",
  ...CSP_LOCKS,
].join('; ');

// The policy as a <meta> right after the charset, before every script and stylesheet.
function withPolicyMeta(html: string, policy: string): string {
  const charset = '<meta charset="utf-8" />';
  const out = html.replace(charset, () => `${charset}\n    <meta http-equiv="Content-Security-Policy" content="${policy}" />`);
  if (!out.includes(policy)) throw new Error('membudget: could not place the Content-Security-Policy');
  return out;
}

// The site build (not the dev server, whose injected client would need more).
function sitePolicy(): Plugin {
  return {
    name: 'membudget-csp',
    apply: 'build',
    transformIndexHtml: { order: 'post', handler: (html) => withPolicyMeta(html, SITE_CSP) },
  };
}

// The single file inlines its script, its stylesheet and the .wasm (a data: URL), so its policy allows exactly
// those: each inline block by its SHA-256, data: for the .wasm fetch and the icon, and the Hub as the site's. Runs after the inlining.
function singleFilePolicy(): Plugin {
  const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
  return {
    name: 'membudget-csp-single-file',
    apply: 'build',
    enforce: 'post',
    generateBundle: {
      order: 'post',
      handler(_options, bundle) {
        const html = bundle['index.html'];
        if (!html || html.type !== 'asset' || typeof html.source !== 'string') throw new Error('membudget: no index.html to give a policy');
        // public/ is not copied into the single file: its icon goes inline, and it has no manifest to install.
        const icon = readFileSync(fileURLToPath(new URL('./public/favicon.svg', import.meta.url)));
        const source = html.source
          .replace('href="./favicon.svg"', `href="data:image/svg+xml;base64,${icon.toString('base64')}"`)
          .replace(/\s*<link rel="manifest" href="\.\/manifest\.webmanifest" \/>/, '');
        if (source.includes('favicon.svg') || source.includes('manifest.webmanifest'))
          throw new Error('membudget: the single file still links public/');
        const hashes = (tag: string) =>
          [...source.matchAll(new RegExp(`<${tag}\\b[^>]*>([\\s\\S]*?)</${tag}>`, 'g'))].map((m) => sha256(m[1]));
        const scripts = hashes('script'),
          styles = hashes('style');
        if (scripts.length === 0 || /<script\b[^>]*\bsrc=/.test(source))
          throw new Error('membudget: the single file must inline its script');
        const policy = [
          "default-src 'none'",
          `script-src ${scripts.join(' ')} 'wasm-unsafe-eval'`,
          `style-src ${styles.join(' ') || "'none'"}`,
          `connect-src data: ${HUB_ORIGIN}`,
          'img-src data:',
          ...CSP_LOCKS,
        ].join('; ');
        html.source = withPolicyMeta(source, policy);
      },
    },
  };
}

export default defineConfig({
  root: 'web',
  base: './',
  // public/ (icon, manifest) goes to the site; the single file carries its icon inline and has no manifest.
  publicDir: singleFile ? false : '../public',
  // The single file has no separate worker file to load: its planner runs the same slices on the main thread.
  define: { __MEMBUDGET_WORKER__: JSON.stringify(!singleFile) },
  worker: { format: 'es' },
  plugins: singleFile ? [viteSingleFile({ removeViteModuleLoader: true }), singleFilePolicy()] : [preloadWasm(), sitePolicy()],
  build: {
    outDir: singleFile ? '../dist/single' : '../dist',
    emptyOutDir: true,
    target: 'es2022',
    // The single file inlines the .wasm as a data: URL; the site keeps it as a cacheable file.
    assetsInlineLimit: singleFile ? () => true : 0,
    reportCompressedSize: false,
  },
  server: { host: '127.0.0.1' },
  // `npm start` serves dist/ with the policy as a header too, and lets a sandboxed (opaque-origin) frame load it.
  preview: {
    host: '127.0.0.1',
    headers: {
      'Content-Security-Policy': SITE_CSP,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'Access-Control-Allow-Origin': '*',
    },
  },
});
