import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EVENT_DETAILS } from '../../console/events.js';
import { consoleEvents } from '../../scripts/console-events.mjs';
import { EVENT_TYPES, EVENTS } from '../../src/state/events.js';

/**
 * The console's copy of the event definitions (console/events.js) is generated from
 * src/state/events.ts: an event added or changed there without `node scripts/console-events.mjs`
 * fails here, so the console never shows a type it has no words for.
 */
describe('console/events.js', () => {
  it('is what scripts/console-events.mjs makes of the event definitions', () => {
    const file = readFileSync(new URL('../../console/events.js', import.meta.url), 'utf8');
    expect(file).toBe(consoleEvents(EVENTS));
  });

  it('has words for every event type, and no others', () => {
    expect(Object.keys(EVENT_DETAILS)).toEqual([...EVENT_TYPES]);
  });
});
