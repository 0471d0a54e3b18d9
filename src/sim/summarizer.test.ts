import { describe, expect, it } from 'vitest';
import { summarize } from './summarizer.js';

describe('summarize', () => {
  it('names the speakers, the first stated intent and the outcome', () => {
    const lines = [
      { speaker: 'agent', text: 'Northwind billing, how can I help?' },
      { speaker: 'customer', text: 'I was charged twice for my invoice.' },
      { speaker: 'agent', text: 'I have issued a refund.' },
    ];
    expect(summarize(lines, 42)).toBe(
      'A 42-second call between the agent and the customer. The customer wanted to sort out a billing problem. A refund was issued.',
    );
  });

  it('prefers a need stated in the first person over a greeting that names a department', () => {
    const summary = summarize(
      [
        { speaker: 'agent', text: 'Billing department.' },
        { speaker: 'customer', text: 'My internet is down.' },
      ],
      10,
    );
    expect(summary).toContain('The customer wanted to get help with a technical problem.');
  });

  it('quotes the opening line when no intent is recognised, and says when no outcome was reached', () => {
    expect(summarize([{ speaker: 'Ann', text: 'Lovely weather today. Anyway.' }], 5)).toBe(
      'A 5-second call with Ann. The call opened with "Lovely weather today." No clear outcome was reached before the call ended.',
    );
  });

  it('extracts the day and time of a booking', () => {
    const summary = summarize(
      [
        { speaker: 'caller', text: 'I would like an appointment.' },
        { speaker: 'ai_receptionist', text: 'You are booked for Friday at 2:00 pm.' },
      ],
      30,
    );
    expect(summary).toBe(
      'A 30-second call between the caller and the ai receptionist. The caller wanted to book an appointment. The appointment was booked ' +
        'for Friday at 2:00 pm.',
    );
  });

  it('recognises voicemail, with or without a message', () => {
    const greeting = { speaker: 'voicemail', text: 'Please leave a message after the tone.' };
    expect(summarize([greeting], 8)).toBe('A 8-second call with the voicemail. The call reached voicemail and no message was left.');
    expect(summarize([greeting, { speaker: 'caller', text: 'About my bill, please call me back.' }], 20)).toBe(
      'A 20-second call between the voicemail and the caller. The call reached voicemail, and the caller left a message about a billing ' +
        'problem. A call back was requested.',
    );
  });

  it('an empty transcript', () => {
    expect(summarize([], 0)).toBe('A 0-second call in which nobody spoke.');
  });

  it('is a pure function of its input', () => {
    const lines = [{ speaker: 'customer', text: 'Sounds good, sign me up for the upgrade.' }];
    expect(summarize(lines, 12)).toBe(summarize(structuredClone(lines), 12));
  });

  it('a settled line with a day and time is a booking (regression: "Done: Tuesday at 10." read as no clear outcome)', () => {
    const lines = [
      { speaker: 'customer', text: 'Can I book a cleaning next week?' },
      { speaker: 'agent', text: 'Tuesday at 10 or Thursday at 3 pm?' },
      { speaker: 'customer', text: 'Tuesday, please.' },
      { speaker: 'agent', text: 'Done: Tuesday at 10.' },
    ];
    expect(summarize(lines, 48)).toBe(
      'A 48-second call between the customer and the agent. The customer wanted to book an appointment. The appointment was booked for Tuesday at 10.',
    );
  });

  /** The summary's end, as long as the outcome expected: the outcome is its last sentence. */
  const ending = (text: string, expected: string) =>
    summarize(
      [
        { speaker: 'customer', text: 'Hello.' },
        { speaker: 'agent', text },
      ],
      30,
    ).slice(-expected.length - 1);

  it.each([
    ['All set, see you on March 3rd at 9:30 am.', 'The appointment was booked for March 3rd at 9:30 am.'],
    ["Great, you're locked in for tomorrow at noon.", 'The appointment was booked for tomorrow at noon.'],
    ['Confirmed for 10:30 am.', 'The appointment was booked for 10:30 am.'],
    ['I have rescheduled you to Friday at 2 pm.', 'The appointment was moved to Friday at 2 pm.'],
    ['Your appointment has been cancelled.', 'The appointment was cancelled.'],
    ['Okay, I cancelled it.', 'The booking was cancelled.'],
    ['Your subscription is cancelled as of today.', 'The subscription was cancelled.'],
    ['I have refunded $49.99 to your card.', 'A refund of $49.99 was issued.'],
    ['Your payment has been received, thank you.', 'The payment was taken.'],
    ['Your order has been placed.', 'The order was placed.'],
    ['Your order is confirmed, confirmation number 4411.', 'The order was confirmed.'],
    ['That is confirmed.', 'It was confirmed.'],
    ['Done.', 'No clear outcome was reached before the call ended.'],
  ])('%j gives %j', (text, expected) => {
    expect(ending(text, expected)).toBe(` ${expected}`);
  });

  it('a request to cancel is an intent, not an outcome', () => {
    const summary = summarize(
      [
        { speaker: 'customer', text: 'I need to cancel my appointment on Monday.' },
        { speaker: 'agent', text: 'Let me look into that.' },
      ],
      20,
    );
    expect(summary).toBe(
      'A 20-second call between the customer and the agent. The customer wanted to cancel a booking. No clear outcome was reached before the call ended.',
    );
  });

  it('a cancellation outranks the booking it cancels', () => {
    const summary = summarize(
      [
        { speaker: 'customer', text: 'I booked a visit for Friday but cannot make it.' },
        { speaker: 'agent', text: 'No problem, your visit is cancelled.' },
      ],
      25,
    );
    expect(summary).toContain('The visit was cancelled.');
  });
});
