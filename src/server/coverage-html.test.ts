import { expect, it } from 'vitest';
import { emptyCoverage, mergeCoverage } from '../scripting/coverage-report.js';
import { coverageHtml } from './coverage-html.js';

it('escapes every text of the report: a report read from a file cannot put markup in the page', () => {
  const hostile = '<img src=x onerror="alert(1)">';
  const report = mergeCoverage({
    ...emptyCoverage(),
    sandboxes: 1,
    endpoints: { "GET /v1/<script>'": { '200': 1 } },
    events: { [hostile]: 0 },
  });
  const html = coverageHtml(report);
  expect(html).not.toContain('<img');
  expect(html).not.toContain('<script>');
  expect(html).toContain('&#60;img src=x onerror=&#34;alert(1)&#34;&#62;');
  expect(html).toContain('GET /v1/&#60;script&#62;&#39;');
  expect(html).toMatch(/<tr class="never"><td>&#60;img/);
});

it('leads with what the suite never made happen, in the order of the printed summary, and keeps what needs a fault after it', () => {
  const report = mergeCoverage({
    ...emptyCoverage(),
    sandboxes: 1,
    endpoints: { 'POST /v1/calls': { '201': 2, '422': 0, '503': 0 } },
    calls: { states: {}, transitions: {}, dispositions: { answered: 2, canceled: 0 }, answeredBy: { voicemail: 0 } },
    errors: { service_unavailable: 0 },
  });
  const html = coverageHtml(report);
  const at = (text: string) => {
    const i = html.indexOf(text);
    expect(i, text).toBeGreaterThan(-1);
    return i;
  };
  const order = [
    at('<h2 id="behaviour">What the suite never made happen'),
    at('<h3>How calls ended'),
    at('<span class="never">canceled</span>'),
    at('<h3>Who answered'),
    at('<h3>Answers never given'),
    at('<td>POST /v1/calls</td><td><span class="never">422</span></td>'),
    at('<h2 id="faults">Only an injected fault produces these'),
    at('<h3>Server errors (5xx) never answered'),
    at('<span class="never">503</span>'),
    at('faults.inject('),
    at('<h3>Error codes only a fault produces'),
    at('<h2 id="all">Every item <small>2 of 7 exercised; 2 of the 5 never exercised need an injected fault</small>'),
  ];
  expect(order).toEqual([...order].sort((a, b) => a - b));
  // The page and the printed summary show the same gaps: the report's own.
  for (const gap of report.gaps) expect(html).toContain(`<h3>${gap.title.replace(/&/g, '&#38;')} <small>${gap.section}</small></h3>`);
});
