// Issue 23's hardware in the explorer and on the compare page, against a release build (dist/):
// - the pickers list every GPU and NIC of the catalog (MI300X/MI325X/MI355X, B300, GB300,
//   efa-100/200/400) and the scale-up picker offers xGMI;
// - the MI300X preset shows what the model runs: mi300x on xgmi with 8x roce-400, NVLS off and
//   not offered (no switch), "RCCL's choice", never an NVLS algorithm; the page's model cluster
//   (main.layout data-model) is the preset's;
// - an AWS p5 shape by hand: efa-100 with 32 NICs per node is accepted without an error;
// - the compare page lists the new presets;
// - a screenshot of the pickers with the MI300X preset goes to e2e/out/hardware-mi300x.png;
// - no console error on the way.
//
//   node e2e/hardware.mjs       (DIST=path to test another build)

import { join } from 'node:path';
import { checker, assert, clickPreset } from './static-server.mjs';
import { setUp, newPage, OUT as out } from './run.mjs';

async function options(page, sel) {
  return page.$$eval(`${sel} option`, (os) => os.map((o) => o.value));
}

async function model(page) {
  return page.evaluate(() => JSON.parse(document.querySelector('main.layout').dataset.model ?? 'null'));
}

async function main() {
  const { base, browser, close } = await setUp();
  const { check, summary } = checker();
  const { page, problems } = await newPage(browser, { serviceWorkers: 'block' });
  try {
    await page.goto(base, { waitUntil: 'load' });
    await page.waitForSelector('#gpu-select', { timeout: 15000 });

    await check('pickers list the new GPUs, NICs and the xGMI fabric', async () => {
      const gpus = await options(page, '#gpu-select');
      for (const g of ['mi300x', 'mi325x', 'mi355x', 'b300', 'gb300']) assert(gpus.includes(g), `GPU ${g} missing: ${gpus}`);
      const nics = await options(page, '#nic-select');
      for (const n of ['efa-100', 'efa-200', 'efa-400', 'roce-400', 'ib-xdr']) assert(nics.includes(n), `NIC ${n} missing: ${nics}`);
      assert((await options(page, '#scale-up-select')).includes('xgmi'), 'xgmi missing');
    });

    await check('MI300X preset: the pickers show what the model runs (RCCL, xGMI, no NVLS)', async () => {
      await clickPreset(page, 'mi300x-roce');
      await page.waitForFunction(() => document.querySelector('#gpu-select')?.value === 'mi300x', null, { timeout: 10000 });
      assert((await page.inputValue('#scale-up-select')) === 'xgmi', 'scale-up shows xgmi');
      assert((await page.inputValue('#nic-select')) === 'roce-400', 'NIC shows roce-400');
      const nvls = await page.$eval('#nvls-check', (e) => ({ checked: e.checked, disabled: e.disabled }));
      assert(!nvls.checked && nvls.disabled, `NVLS box ${JSON.stringify(nvls)}`);
      const m = await model(page);
      assert(m && m.gpu === 'mi300x' && m.scale_up === 'xgmi' && m.nics_per_node === 8 && m.nodes === 16, `model ${JSON.stringify(m)}`);
      await page.waitForFunction(() => document.querySelector('[data-testid=choice] .stat-label')?.textContent.startsWith("RCCL's choice"), null, { timeout: 10000 });
      const algo = await page.textContent('[data-testid=algorithm]');
      assert(!algo.startsWith('NVLS'), `algorithm ${algo}`);
      await page.$eval('.pickers', (el) => el.scrollIntoView({ block: 'start' }));
      await page.screenshot({ path: join(out, 'hardware-mi300x.png') });
    });

    await check('AWS p5 by hand: efa-100 with 32 NICs per node is accepted', async () => {
      await page.click('[data-preset=dgx-h100-superpod]');
      await page.waitForFunction(() => document.querySelector('#gpu-select')?.value === 'h100', null, { timeout: 10000 });
      await page.selectOption('#nic-select', 'efa-100');
      await page.fill('#nics-number', '32');
      await page.press('#nics-number', 'Enter');
      await page.waitForFunction(() => JSON.parse(document.querySelector('main.layout').dataset.model ?? '{}').nics_per_node === 32, null, { timeout: 10000 });
      const m = await model(page);
      assert(m.nic === 'efa-100', `model ${JSON.stringify(m)}`);
      const errors = await page.$$eval('.controls .error', (es) => es.map((e) => e.textContent).filter(Boolean));
      assert(errors.length === 0, errors.join('; '));
    });

    await check('compare page lists the new presets', async () => {
      await page.goto(base + 'compare.html', { waitUntil: 'load' });
      await page.waitForSelector('[data-preset=aws-p5]', { state: 'attached', timeout: 15000 });
      for (const id of ['aws-p4d', 'aws-p5en', 'aws-p6-b200', 'gcp-a3-mega', 'mi300x-roce', 'mi355x-pollara', 'gb300-nvl72', 'b300-hgx', 'gcp-a3-ultra', 'gcp-a4', 'azure-nd-gb200-v6', 'oci-gb200', 'oci-gb300', 'oci-mi355x']) {
        assert(await page.$(`[data-preset=${id}]`), `preset ${id} missing`);
      }
    });

    await check('no console error', async () => assert(problems.length === 0, problems.join('\n')));
  } finally {
    await close();
  }
  process.exit(summary('e2e hardware') ? 0 : 1);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
