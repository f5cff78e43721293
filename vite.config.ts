import { defineConfig, type Plugin } from 'vite';
import { viteSingleFile } from 'vite-plugin-singlefile';

// Two builds from one page: `dist/` for any static server under any sub-path (relative base), and with
// SINGLE_FILE=1 one self-contained HTML file (scripts, styles and the wasm inlined) to open from disk.
const singleFile = process.env.SINGLE_FILE === '1';

// Starts the .wasm download with the HTML instead of after the script has run.
function preloadWasm(): Plugin {
  return {
    name: 'membudget-preload-wasm',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(_html, context) {
        const wasm = Object.keys(context.bundle ?? {}).find((name) => name.endsWith('.wasm'));
        if (!wasm) return [];
        return [{ tag: 'link', attrs: { rel: 'preload', href: `./${wasm}`, as: 'fetch', type: 'application/wasm', crossorigin: 'anonymous' }, injectTo: 'head' }];
      },
    },
  };
}

export default defineConfig({
  root: 'web',
  base: './',
  publicDir: '../public',
  plugins: singleFile ? [viteSingleFile({ removeViteModuleLoader: true })] : [preloadWasm()],
  build: {
    outDir: singleFile ? '../dist/single' : '../dist',
    emptyOutDir: true,
    target: 'es2022',
    // The single file inlines the .wasm as a data: URL; the site keeps it as a cacheable file.
    assetsInlineLimit: singleFile ? () => true : 0,
    reportCompressedSize: false,
  },
  server: { host: '127.0.0.1' },
  preview: { host: '127.0.0.1' },
});
