// Values from a link, a form or a pasted file only ever become text: no page source may use an API that
// parses a string as markup or code (the built page's Trusted Types policy refuses them at run time too).
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/paths';

// Also inline style attributes, which the page's policy (style-src 'self') refuses; element.style.x = … is allowed.
const SINKS =
  /\.(innerHTML|outerHTML|srcdoc)\b|insertAdjacentHTML|document\.write|DOMParser|createContextualFragment|\beval\s*\(|new Function\b|setAttribute\(\s*['"](on|style)|\bstyle\s*:\s*['"`]/;

describe('the page’s sources', () => {
  const sourceDir = resolve(ROOT, 'web/src');
  const files = readdirSync(sourceDir).filter((name) => name.endsWith('.ts'));

  it('are all read', () => {
    expect(files).toContain('main.ts');
    expect(files).toContain('dom.ts');
  });

  for (const name of files) {
    it(`${name} parses no string as markup or code`, () => {
      const lines = readFileSync(resolve(sourceDir, name), 'utf8').split('\n');
      const hits = lines.map((line, i) => [i + 1, line] as const).filter(([, line]) => SINKS.test(line) && !line.trim().startsWith('//'));
      expect(hits).toEqual([]);
    });
  }

  it('and web/index.html has no inline script, style or handler', () => {
    const html = readFileSync(resolve(ROOT, 'web/index.html'), 'utf8');
    for (const [, attributes] of html.matchAll(/<script\b([^>]*)>/g)) expect(attributes).toMatch(/\bsrc=/);
    expect(html).not.toMatch(/<style\b|\sstyle="|\son[a-z]+=/i);
  });
});
