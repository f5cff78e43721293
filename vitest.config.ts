import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/wasm/**/*.test.ts', 'tests/web/**/*.test.ts', 'tests/browser/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: browser files launch Chromium; keep them from starving each other.
    maxWorkers: 2,
  },
});
