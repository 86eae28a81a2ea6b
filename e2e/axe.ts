/** Runs axe-core in the page and returns its serious and critical violations. */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Page } from '@playwright/test';

const require = createRequire(import.meta.url);
const axePath = require.resolve('axe-core/axe.min.js');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown[]; failureSummary?: string }>;
}

/**
 * Injects axe-core (from node_modules, no network) and audits the whole page. The page's CSP
 * rightly refuses `page.addScriptTag` (an inline script), so the source is evaluated through the
 * DevTools protocol instead, which CSP does not govern.
 */
export async function seriousA11yViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(await readFile(axePath, 'utf8'));
  const result = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: { run: (ctx: Document) => Promise<{ violations: unknown[]; passes: unknown[] }> };
      }
    ).axe;
    const r = await axe.run(document);
    return { violations: r.violations, passes: r.passes.length };
  });
  // A run that checked nothing would pass vacuously.
  if (result.passes === 0) throw new Error('axe-core ran no checks on the page');
  const violations = result.violations;
  return (violations as AxeViolation[]).filter(
    (v) => v.impact === 'serious' || v.impact === 'critical',
  );
}
