// The console's first page stays light: what index.html loads (its scripts and styles) is at most 300 KB gzipped.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';

const distDir = join(import.meta.dirname, '..', '..', 'console', 'dist');

describe('console bundle', () => {
  it("loads at most 300 KB (gzip) of JavaScript and CSS on its first page (run after the console's build)", () => {
    const index = readFileSync(join(distDir, 'index.html'), 'utf8');
    const assets = [...index.matchAll(/(?:src|href)="\/console\/(assets\/[^"]+\.(?:js|css))"/g)].map(
      (match) => match[1]!,
    );
    expect(assets.some((asset) => asset.endsWith('.js'))).toBe(true);
    const gzipped = assets.reduce((total, asset) => total + gzipSync(readFileSync(join(distDir, asset))).length, 0);
    console.log(`console first page: ${assets.join(', ')}: ${(gzipped / 1024).toFixed(1)} KB gzip`);
    expect(gzipped).toBeLessThanOrEqual(300 * 1024);
  });
});
