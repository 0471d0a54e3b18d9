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
