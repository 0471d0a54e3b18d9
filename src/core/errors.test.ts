import { describe, expect, it } from 'vitest';
import { callRef, field, partsBy, render, SandboxError, said, saidBy } from './errors.js';
import { Invalid, invalid, name, oneOf } from './schema.js';

describe('a message as parts', () => {
  it('keeps field and call names as parts, and the library says them as it always has', () => {
    const parts = said`${field('behavior.ring')} must be at most ${5}; see ${callRef('calls.inbound')}. ${field('')} too.`;
    expect(parts).toEqual([
      { field: 'behavior.ring' },
      ' must be at most ',
      '5',
      '; see ',
      { call: 'calls.inbound' },
      '. ',
      { field: '' },
      ' too.',
    ]);
    expect(render(parts)).toBe('`behavior.ring` must be at most 5; see calls.inbound(). the value too.');
  });

  it('lets a boundary name each part its own way, and touches no text that only looks like a name', () => {
    const parts = said`${field('seed')} cannot be given with \`seed\` in ${callRef('calls.inbound')}.`;
    const text = render(parts, { field: (path) => `--${path}`, call: () => 'POST /calls/inbound' });
    expect(text).toBe('--seed cannot be given with `seed` in POST /calls/inbound.');
  });

  it('a schema refusal keeps the field it names as a part through SandboxError', () => {
    let refusal: unknown;
    try {
      oneOf(['busy', 'answered'], 'An outcome.').parse('bussy', 'behavior.outcome');
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(Invalid);
    expect((refusal as Invalid).parts[0]).toEqual({ field: 'behavior.outcome' });
    const error = new SandboxError(invalid(said`${name('to')} must be E.164.`).parts, { where: 'calls.inbound' });
    expect(error.message).toBe('calls.inbound: `to` must be E.164.');
    expect(error.text).toBe('`to` must be E.164.');
    expect(saidBy(error, 'calls.inbound', { field: (path) => path.toUpperCase() })).toBe('TO must be E.164.');
    expect(saidBy(error, ['createSandbox'])).toBe('calls.inbound: `to` must be E.164.');
    expect(partsBy(error, 'createSandbox')).toEqual(['calls.inbound: ', { field: 'to' }, ' must be E.164.']);
  });
});
