// Shared by the suites that read a congestion section (congestion, onestep, calibrate): the
// section's frame once it has loaded, and a layout's CLI flags.

import { assert } from './static-server.mjs';

/** A layout's CLI flags, from a StepReport's mapping. */
export const layoutFlags = (m) => ['--tp', m.tp, '--pp', m.pp, '--cp', m.cp, '--ep', m.ep, '--micro-batch', m.micro_batch, '--interleave', m.interleave, '--recompute', m.recompute, '--zero', m.zero].map(String);

/**
 * The congestion section's frame (congestion.html in the explorer or compare), scrolled into
 * view and loaded; with `scrollPanel`, its panel is scrolled into the outer page's view too
 * (the panel computes only while on screen). `timeout`: how long the panel may take to appear.
 */
export async function congestionFrame(page, { scrollPanel = true, timeout = 30000, polls = 300 } = {}) {
  await page.locator('[data-testid=congestion-section]').scrollIntoViewIfNeeded();
  let f = null;
  for (let i = 0; i < polls && !f; i++) {
    f = page.frames().find((x) => x.url().includes('congestion.html'));
    if (!f) await page.waitForTimeout(100);
  }
  assert(f, 'the congestion frame loaded');
  await f.waitForSelector('[data-testid=congestion]', { timeout });
  if (scrollPanel) await f.locator('[data-testid=congestion]').scrollIntoViewIfNeeded();
  return f;
}
