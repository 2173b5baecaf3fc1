/**
 * The HTML reports in a real browser: headless Chromium (Debian's `chromium`, driven by
 * playwright-core; nothing is downloaded) opens the pages `simulate --html` and `tune --html`
 * write, and the test fails on any console error or page error, on a chart that drew no marks,
 * on an XSS payload planted in a log (model name, project path, tool output) that runs, and when
 * sorting or the drill-down does not work. Screenshots are saved under the test's temp dir.
 *
 * `.ci/run` installs chromium and sets CACHECOST_REQUIRE_BROWSER=1, so in CI a missing browser is
 * a failure; on a machine without it the test is skipped with a note.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../cli/run.js';

const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const REQUIRED = process.env['CACHECOST_REQUIRE_BROWSER'] === '1';
const available = existsSync(CHROMIUM);
if (!available && !REQUIRED) console.warn(`browser test skipped: no ${CHROMIUM} (apt-get install -y chromium)`);

const ROOT = join(import.meta.dirname, '..', '..');
const SESSION = '5e55a0b1-0000-4000-8000-00000000c0de';
/** Each payload sets a global when it runs; the page must never set one. */
const XSS_MODEL = 'claude-sonnet-4-5"><img src=x onerror="window.__xss=1">';
const XSS_PROJECT = '/tmp/<script>window.__xss=2</script>';
const XSS_TOOL = '</pre><script>window.__xss=3</script><img src=x onerror="window.__xss=4">';

function line(fields: Record<string, unknown>): string {
  return JSON.stringify({ isSidechain: false, sessionId: SESSION, cwd: XSS_PROJECT, version: '2.1.87', ...fields });
}

/** A small Claude Code session (formats.md §2) with hostile strings where logs carry text. */
function hostileSession(): string {
  const lines: string[] = [];
  let parent = 'u0';
  const at = (i: number) => new Date(Date.UTC(2026, 0, 5, 10, 0, i * 20)).toISOString();
  lines.push(
    line({
      type: 'user',
      uuid: 'u0',
      parentUuid: null,
      timestamp: at(0),
      message: { role: 'user', content: `fix it ${XSS_TOOL}` },
    }),
  );
  for (let i = 1; i <= 6; i += 1) {
    const usage = {
      input_tokens: 10,
      cache_creation_input_tokens: 2_000,
      cache_read_input_tokens: 10_000 * i,
      output_tokens: 50,
    };
    const tool = { type: 'tool_use', id: `toolu_${i}`, name: 'Bash', input: { command: `echo ${XSS_TOOL}` } };
    lines.push(
      line({
        type: 'assistant',
        uuid: `a${i}`,
        parentUuid: parent,
        timestamp: at(2 * i - 1),
        requestId: `req_${i}`,
        message: {
          id: `msg_${i}`,
          type: 'message',
          role: 'assistant',
          model: XSS_MODEL,
          content: [tool],
          stop_reason: 'tool_use',
          usage,
        },
      }),
    );
    lines.push(
      line({
        type: 'user',
        uuid: `r${i}`,
        parentUuid: `a${i}`,
        timestamp: at(2 * i),
        message: {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: XSS_TOOL.repeat(40) }],
        },
      }),
    );
    parent = `r${i}`;
  }
  return `${lines.join('\n')}\n`;
}

let dir = '';
let context: BrowserContext | null = null;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cachecost-browser-'));
  const project = join(dir, 'logs', 'projects', '-tmp--script-window---xss-2--script-');
  await mkdir(project, { recursive: true });
  await writeFile(join(project, `${SESSION}.jsonl`), hostileSession());
  if (!available) return;
  context = await chromium.launchPersistentContext(join(dir, 'profile'), {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
    viewport: { width: 1280, height: 900 },
  });
}, 60_000);

afterAll(async () => {
  await context?.close();
  if (dir !== '') console.info(`browser screenshots: ${join(dir, 'shots')}`);
});

type Opened = { readonly page: Page; readonly problems: string[] };

/** Opens a file with every console error, page error, dialog and network request recorded as a problem. */
async function open(file: string): Promise<Opened> {
  if (context === null) throw new Error('no browser');
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('dialog', (dialog) => {
    problems.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.on('request', (request) => {
    if (!request.url().startsWith('file:')) problems.push(`network request: ${request.url()}`);
  });
  await page.goto(`file://${file}`);
  await page.waitForLoadState('load');
  return { page, problems };
}

async function shot(page: Page, name: string, fullPage = false): Promise<void> {
  await mkdir(join(dir, 'shots'), { recursive: true });
  await page.screenshot({ path: join(dir, 'shots', `${name}.png`), fullPage });
}

/** Marks each chart drew (Vega's role-mark groups hold the data marks; axes and legends are other roles). */
async function marksPerChart(page: Page): Promise<number[]> {
  return page.$$eval('figure.chart svg', (svgs) =>
    svgs.map(
      (svg) =>
        svg.querySelectorAll('g.role-mark > path, g.role-mark > line, g.role-mark > rect, g.role-mark > g > path')
          .length,
    ),
  );
}

describe.skipIf(!available && !REQUIRED)('HTML reports in headless Chromium', () => {
  it('simulate --html: no console error, every chart drew, payloads inert, sorting and drill-down work', async () => {
    const file = join(dir, 'simulate.html');
    const { code, stderr } = await cli(
      [
        'simulate',
        '--target',
        '120000',
        join(ROOT, 'datasets', 'freecode'),
        join(dir, 'logs'),
        '--html',
        file,
        '--json',
      ],
      { SOURCE_DATE_EPOCH: '0' },
    );
    expect(code, stderr).toBe(0);
    const { page, problems } = await open(file);
    await shot(page, 'simulate-top');
    const marks = await marksPerChart(page);
    expect(marks.length).toBeGreaterThan(1);
    expect(
      marks.every((n) => n > 0),
      `marks per chart: ${marks.join(', ')}`,
    ).toBe(true);

    // Sorting: the bill column, descending then ascending, by the numbers behind the cells.
    const billHeader = page.locator('#sessions thead th', { hasText: /^bill$/ });
    const bills = () =>
      page.$$eval('#sessions tbody tr', (rows) =>
        rows
          .map((row) => row.cells[5]?.getAttribute('data-v') ?? '')
          .filter((v) => v !== '')
          .map(Number),
      );
    await billHeader.click();
    const ascending = await bills();
    expect(ascending).toEqual([...ascending].sort((a, b) => a - b));
    await billHeader.click();
    const descending = await bills();
    expect(descending).toEqual([...ascending].sort((a, b) => b - a));
    expect(await billHeader.getAttribute('aria-sort')).toBe('descending');
    await page.locator('#sessions').scrollIntoViewIfNeeded();
    await shot(page, 'simulate-sorted');

    // Drill-down: the hostile session's link opens its details, with a timeline that drew.
    const link = page.locator('#sessions tbody a', { hasText: SESSION.slice(0, 8) });
    const target = (await link.getAttribute('href')) ?? '';
    expect(target).toMatch(/^#s-\d+$/);
    await link.click();
    const details = page.locator(target);
    await expect.poll(() => details.evaluate((el) => (el as unknown as { open: boolean }).open)).toBe(true);
    expect(await details.locator('figure.timeline svg').count()).toBe(1);
    expect(await details.locator('figure.timeline svg g.role-mark > path').count()).toBeGreaterThan(0);
    // The payloads are shown as text, and none ran.
    expect(await details.textContent()).toContain('onerror="window.__xss=1"');
    expect(await page.evaluate(() => (globalThis as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(await page.locator('img').count()).toBe(0);
    await shot(page, 'simulate-drill-down');
    await shot(page, 'simulate-full', true);
    expect(problems).toEqual([]);
  }, 240_000);

  it('tune --html: one cost curve per model with its knee and recommendation, labels inside the chart', async () => {
    const file = join(dir, 'tune.html');
    const { code, stderr } = await cli(
      ['tune', join(ROOT, 'datasets', 'freecode'), '--target', '40k..200k:40k', '--workers', '1', '--html', file],
      { SOURCE_DATE_EPOCH: '0' },
    );
    expect(code, stderr).toBe(0);
    const { page, problems } = await open(file);
    const marks = await marksPerChart(page);
    expect(marks.length).toBeGreaterThan(1);
    expect(
      marks.every((n) => n > 0),
      `marks per chart: ${marks.join(', ')}`,
    ).toBe(true);
    // No text of a chart is clipped by its SVG, and no two labels overlap.
    const layout = await page.$$eval('figure.chart svg', (svgs) =>
      svgs.map((svg) => {
        const box = svg.getBoundingClientRect();
        const texts = [...svg.querySelectorAll('g.role-mark text')]
          .map((t) => t.getBoundingClientRect())
          .filter((r) => r.width > 0);
        const outside = texts.filter(
          (r) =>
            r.left < box.left - 0.5 ||
            r.right > box.right + 0.5 ||
            r.top < box.top - 0.5 ||
            r.bottom > box.bottom + 0.5,
        ).length;
        let overlaps = 0;
        for (let i = 0; i < texts.length; i += 1) {
          for (let j = i + 1; j < texts.length; j += 1) {
            const a = texts[i];
            const b = texts[j];
            if (a && b && a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) overlaps += 1;
          }
        }
        return { outside, overlaps };
      }),
    );
    expect(
      layout.every((l) => l.outside === 0 && l.overlaps === 0),
      JSON.stringify(layout),
    ).toBe(true);
    await shot(page, 'tune-full', true);
    expect(problems).toEqual([]);
  }, 300_000);
});
