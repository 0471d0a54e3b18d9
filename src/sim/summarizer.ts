/**
 * The sandbox's "AI summary": a deterministic, rule-based summariser over the transcript
 * (never a call to a real model), so a summary is the same for the same seed and the same
 * transcript. It names who spoke, the caller's intent and the outcome, in three sentences.
 * The rules are keyword patterns; docs/transcripts.md lists them.
 */

/** What the summariser reads of a segment. */
export interface SpokenLine {
  speaker: string;
  text: string;
}

/** Asked to be called back: an outcome, and a voicemail's request. */
const CALL_BACK = /\b(call (me|us|you) back|call back|get back to (you|me))\b/i;

interface Intent {
  pattern: RegExp;
  /** "The customer wanted to …" */
  goal: string;
  /** "left a message about …" */
  topic: string;
}

/** In order: a line naming several ("cancel my appointment") takes the first. */
const INTENTS: Intent[] = [
  { pattern: /\b(cancel|cancellation)\b/i, goal: 'cancel a booking', topic: 'a cancellation' },
  { pattern: /\b(reschedule|move my appointment|change my appointment)\b/i, goal: 'move an appointment', topic: 'moving an appointment' },
  { pattern: /\b(book|schedule|appointment|reservation)\b/i, goal: 'book an appointment', topic: 'an appointment' },
  { pattern: /\b(refund|charged|invoice|billing|bill|payment)\b/i, goal: 'sort out a billing problem', topic: 'a billing problem' },
  {
    pattern: /\b(not (been )?working|stopped working|broken|error|outage|is down|cannot connect|can't connect)\b/i,
    goal: 'get help with a technical problem',
    topic: 'a technical problem',
  },
  { pattern: /\b(upgrade|offer|discount|pricing|renewal|renew|plan)\b/i, goal: 'discuss a plan or an offer', topic: 'a plan or an offer' },
  { pattern: /\b(order|deliver(y|ed)?|shipping|package)\b/i, goal: 'ask about an order', topic: 'an order' },
  {
    pattern: /\b(returning your call|following up|follow up)\b/i,
    goal: 'follow up on an earlier conversation',
    topic: 'an earlier conversation',
  },
];

const VOICEMAIL = /\b(leave (a|your) message|after the (tone|beep)|cannot take your call|can't take your call|not available right now)\b/i;
const DAY = /monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|today/;
const DATE =
  /(?:jan(?:uary)?|feb(?:ruary)?|march|april|may|june|july|aug(?:ust)?|sep(?:tember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?\s+\d{1,2}(?:st|nd|rd|th)?/;
const CLOCK = /\d{1,2}(?::\d{2})?(?:\s*[ap]\.?m\.?)?/;
/** A day or a date, with the time when said ("Tuesday at 10", "March 3rd, 9:30 am", "tomorrow at noon"), or a time alone ("10:30 am"). */
const WHEN = new RegExp(
  `\\b(?:${DAY.source}|${DATE.source})(?:,?\\s+(?:at\\s+)?${CLOCK.source}(?=\\W|$)|\\s+at\\s+noon)?|\\b\\d{1,2}(?::\\d{2})?\\s*[ap]\\.?m\\b\\.?`,
  'i',
);
/** What a line may say was cancelled, confirmed or booked; the first named wins. */
const THING = /\b(appointment|reservation|booking|order|subscription|plan|account|payment|delivery|meeting|visit|cleaning)\b/i;
/** A line that settles something: "done", "confirmed", "all set", "see you then". */
const SETTLED = new RegExp(
  "\\b(done|confirmed|all set|booked|that's settled|it's settled|settled|" +
    "see you (on|then|at)|pencilled you in|penciled you in|locked in|you're in|you are in)\\b",
  'i',
);

interface Outcome {
  pattern: RegExp;
  /** The sentence, given the matching line; null lets the next rule try. */
  say: (line: SpokenLine) => string | null;
}

const when = (line: SpokenLine) => WHEN.exec(line.text)?.[0].replace(/[.,]$/, '');
const thing = (line: SpokenLine, fallback: string) => THING.exec(line.text)?.[1]?.toLowerCase() ?? fallback;

/**
 * In priority order: the first rule that matches any line decides (the latest matching line is
 * quoted). Each pattern asks for the thing done ("cancelled", "refunded"), not asked for ("I
 * want to cancel"), so a request alone is no outcome.
 */
const OUTCOMES: Outcome[] = [
  {
    pattern: /\b(cancell?ed|cancellation (is|has been) (confirmed|processed)|cancelled it|canceled it)\b/i,
    say: (line) => `The ${thing(line, 'booking')} was cancelled.`,
  },
  {
    pattern: /\b(rescheduled|moved (it|you|your \w+) to)\b/i,
    say: (line) => `The appointment was moved${when(line) ? ` to ${when(line)}` : ''}.`,
  },
  {
    pattern: /\b(booked|you're all set|you are all set|appointment is confirmed|see you on)\b/i,
    say: (line) => `The appointment was booked${when(line) ? ` for ${when(line)}` : ''}.`,
  },
  // "Done: Tuesday at 10.": a settling word and a time in one line is a booking.
  { pattern: SETTLED, say: (line) => (when(line) ? `The appointment was booked for ${when(line)}.` : null) },
  {
    pattern: /\b(issued a refund|refund (has been|was|is) (issued|processed|on its way)|refunded|credited)\b/i,
    say: (line) => {
      const amount = /[$€£]\s?\d+(?:[.,]\d{2})?/.exec(line.text)?.[0];
      return amount ? `A refund of ${amount} was issued.` : 'A refund was issued.';
    },
  },
  {
    pattern: /\b(payment (has been|was|is) (received|processed|taken|complete)|paid in full|card (has been|was) charged)\b/i,
    say: () => 'The payment was taken.',
  },
  {
    pattern: /\b(order (has been|was|is) placed|placed (the|your) order|order is on its way|has shipped)\b/i,
    say: () => 'The order was placed.',
  },
  {
    pattern: /\b(working now|works now|is fixed|that's fixed|that is fixed|resolved|sorted out)\b/i,
    say: () => 'The problem was resolved during the call.',
  },
  // A confirmation with no time: "your order is confirmed", "confirmation number 4411".
  {
    pattern: /\b(confirmed|confirmation number|i confirm)\b/i,
    say: (line) => (THING.test(line.text) ? `The ${thing(line, '')} was confirmed.` : 'It was confirmed.'),
  },
  {
    pattern: /\b(sounds good|let's do it|let us do it|sign me up|i'll take it|i will take it|deal)\b/i,
    say: (line) => `The ${role(line.speaker)} agreed to go ahead.`,
  },
  { pattern: /\b(not interested|no thanks|no, thank you|no thank you)\b/i, say: (line) => `The ${role(line.speaker)} declined.` },
  { pattern: CALL_BACK, say: () => 'A call back was requested.' },
];

/** "agent" → "agent", "ai_receptionist" → "ai receptionist"; a proper name is kept as written. */
function role(speaker: string): string {
  return speaker.replace(/_/g, ' ');
}

function who(speaker: string): string {
  return /^[a-z]/.test(speaker) ? `the ${role(speaker)}` : speaker;
}

function list(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

function firstSentence(text: string): string {
  const sentence = /^[^.!?]*[.!?]?/.exec(text.trim())?.[0] ?? text;
  return sentence.length > 80 ? `${sentence.slice(0, 77)}…` : sentence;
}

/** Someone stating their own need ("I was charged", "my internet", "we can offer"), not a greeting naming a department. */
const FIRST_PERSON = /\b(i was|i am|i'm|i would|i'd|i need|i want|my|our|we can|calling about)\b/i;

/** The first line that states a known intent, preferring one said in the first person. */
const matchIntent = (lines: readonly SpokenLine[]) => {
  for (const personal of [true, false]) {
    for (const line of lines) {
      if (personal && !FIRST_PERSON.test(line.text)) continue;
      const intent = INTENTS.find((i) => i.pattern.test(line.text));
      if (intent) return { intent, line };
    }
  }
  return undefined;
};

function outcomeOf(lines: readonly SpokenLine[]): string {
  for (const rule of OUTCOMES) {
    for (const line of [...lines].reverse()) {
      const said = rule.pattern.test(line.text) ? rule.say(line) : null;
      if (said !== null) return said;
    }
  }
  return 'No clear outcome was reached before the call ended.';
}

/**
 * Summarises a transcript of a call that lasted `durationS` seconds.
 *
 * @example
 * summarize(
 *   [
 *     { speaker: 'caller', text: 'I would like to book an appointment.' },
 *     { speaker: 'receptionist', text: 'You are booked for Monday at 9:30 am.' },
 *   ],
 *   40,
 * );
 * // 'A 40-second call between the caller and the receptionist. The caller wanted to book an
 * // appointment. The appointment was booked for Monday at 9:30 am.'
 */
export function summarize(lines: readonly SpokenLine[], durationS: number): string {
  const [first] = lines;
  if (first === undefined) return `A ${durationS}-second call in which nobody spoke.`;
  const speakers = [...new Set(lines.map((l) => l.speaker))];
  const opening = `A ${durationS}-second call ${speakers.length > 1 ? `between ${list(speakers.map(who))}` : `with ${who(first.speaker)}`}.`;

  const greeting = lines.findIndex((l) => VOICEMAIL.test(l.text));
  const machine = lines[greeting];
  if (machine) {
    const message = lines.slice(greeting + 1).filter((l) => l.speaker !== machine.speaker);
    const [caller] = message;
    if (caller === undefined) return sentences(opening, 'The call reached voicemail and no message was left.');
    const about = matchIntent(message)?.intent.topic;
    const callBack = CALL_BACK.test(message.map((l) => l.text).join(' '));
    return sentences(
      opening,
      `The call reached voicemail, and ${who(caller.speaker)} left a message${about ? ` about ${about}` : ''}.`,
      ...(callBack ? ['A call back was requested.'] : []),
    );
  }

  const found = matchIntent(lines);
  const intent = found
    ? `${capital(who(found.line.speaker))} wanted to ${found.intent.goal}.`
    : `The call opened with "${firstSentence(first.text)}"`;
  return sentences(opening, intent, outcomeOf(lines));
}

/**
 * The summary's sentences as one text. Joined rather than concatenated: a join makes one flat
 * string, where `+` leaves a chain of pieces about three times its size, and a session keeps a
 * summary for every call (bench/show-limits.mjs).
 */
function sentences(...parts: string[]): string {
  return parts.join(' ');
}

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
