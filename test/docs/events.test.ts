import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES, EVENTS } from '../../src/state/events.js';

/**
 * The events are defined once (src/state/events.ts); the pages a user reads about them are
 * prose, so this holds them to the definitions: an event added without its words in
 * docs/webhooks.md (the subscription's list and check-receiver's cases) fails here.
 */
describe('the docs name every event', () => {
  const webhooks = readFileSync(new URL('../../docs/webhooks.md', import.meta.url), 'utf8');

  it.each([...EVENT_TYPES])('docs/webhooks.md names %s', (type) => {
    expect(webhooks).toContain(`\`${type}\``);
  });

  it("each event's summary is the spec's sentence for it, ending with a full stop", () => {
    for (const type of EVENT_TYPES) expect(EVENTS[type].summary).toMatch(/^[A-Z].*\.$/);
  });
});
