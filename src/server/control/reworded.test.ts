import { describe, expect, it } from 'vitest';
import { callRef, field, SandboxError, said } from '../../core/errors.js';
import { reworded } from './api.js';

describe('reworded: a library refusal in a control row words', () => {
  it('renames only the field parts, so text that merely looks like a field stays as written', () => {
    const error = new SandboxError(said`${field('behavior.ring')} must be a duration; \`behavior\` is one object.`, {
      where: 'network.setBehavior',
      param: 'behavior.ring',
    });
    const out = reworded(error, { behavior: '' });
    expect(out).toBeInstanceOf(SandboxError);
    expect((out as SandboxError).message).toBe('`ring` must be a duration; `behavior` is one object.');
    expect((out as SandboxError).param).toBe('ring');
  });

  it('says a library call offered as the fix as its route, and the argument itself as the body', () => {
    const error = new SandboxError(said`${field('behavior')} is required: see ${callRef('webhooks.deadLetters')}.`, {
      where: 'network.setBehavior',
    });
    expect((reworded(error, { behavior: '' }) as SandboxError).message).toBe(
      'The body is required: see GET /__sandbox/sessions/{s}/dead-letters.',
    );
  });
});
