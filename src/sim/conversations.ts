import { SandboxError } from '../core/errors.js';
import type { AnsweredBy } from '../state/call-machine.js';
import { readFixture } from '../core/fixtures.js';

/**
 * One line of a conversation script: who speaks, what they say and, optionally, when
 * (seconds from the answer). A script either times every line or none; untimed lines are
 * paced by their length and fitted to the call (see docs/transcripts.md).
 *
 * @example
 * sandbox.transcripts.setScript(callId, [
 *   { speaker: 'agent', text: 'Hello, how can I help?' },
 *   { speaker: 'customer', text: 'I would like to book an appointment.' },
 * ]);
 */
export interface ConversationLine {
  speaker: string;
  text: string;
  /** Seconds from the answer when the line starts. */
  start?: number;
  /** Seconds from the answer when the line ends. */
  end?: number;
}

/** A script of `fixtures/conversations/`. `{name}` placeholders are filled per call. */
interface ConversationFixture {
  name: string;
  variables: Record<string, string[]>;
  lines: Array<{ speaker: string; text: string }>;
}

/** Scripts a human-answered call may get, chosen by the call's (seeded) id. */
const HUMAN_SCRIPTS = ['sales', 'support', 'billing'] as const;
const SCRIPT_NAMES = [...HUMAN_SCRIPTS, 'receptionist', 'voicemail'] as const;
type ScriptName = (typeof SCRIPT_NAMES)[number];

/** What picking a call's script needs to know about the call. */
export interface ScriptedCall {
  id: string;
  answeredBy: AnsweredBy | null;
  agent: string | null;
}

/** FNV-1a: a stable 32-bit hash, so a call's script and names depend only on its seeded id. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

const capitalise = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

/**
 * The conversation scripts shipped in `fixtures/conversations/`, read once per sandbox
 * on first use (no module-level cache), and the rule that gives each answered call its
 * script: the AI receptionist's calls get `receptionist`, voicemail gets `voicemail`,
 * other calls one of `sales`, `support`, `billing` chosen by a hash of the call id (so
 * by the seed). Placeholders such as `{customer}` are filled the same way.
 */
export class ConversationLibrary {
  private fixtures: Map<ScriptName, ConversationFixture> | null = null;

  /** The lines of the conversation `call` carries; `assistant` is the AI receptionist's name. */
  scriptFor(call: ScriptedCall, assistant: string): ConversationLine[] {
    const name: ScriptName =
      call.answeredBy === 'ai_receptionist'
        ? 'receptionist'
        : call.answeredBy === 'voicemail'
          ? 'voicemail'
          : HUMAN_SCRIPTS[hash(`${call.id}:script`) % HUMAN_SCRIPTS.length]!;
    const fixture = this.load().get(name)!;
    const values: Record<string, string> = { assistant: capitalise(assistant) };
    for (const [variable, choices] of Object.entries(fixture.variables)) {
      values[variable] = choices[hash(`${call.id}:${variable}`) % choices.length]!;
    }
    if (call.agent !== null && call.answeredBy !== 'ai_receptionist') values.agent = capitalise(call.agent);
    const fill = (text: string) => text.replace(/\{(\w+)\}/g, (whole, key: string) => values[key] ?? whole);
    return fixture.lines.map((line) => ({ speaker: line.speaker, text: fill(line.text) }));
  }

  private load(): Map<ScriptName, ConversationFixture> {
    if (!this.fixtures) {
      this.fixtures = new Map(SCRIPT_NAMES.map((name) => [name, readFixture(`conversations/${name}.json`) as ConversationFixture]));
    }
    return this.fixtures;
  }
}

/**
 * Checks a script a test supplies, so a mistake fails where it was written; returns a copy.
 *
 * @example
 * checkScript([{ speaker: 'agent', text: 'Hi' }], 'transcripts.setScript'); // ok
 * checkScript([], 'transcripts.setScript');                                  // throws SandboxError
 */
export function checkScript(lines: unknown, where: string): ConversationLine[] {
  const fail = (message: string): never => {
    throw new SandboxError(`${where}: ${message}`);
  };
  if (!Array.isArray(lines) || lines.length === 0) {
    return fail("the script must be a non-empty array of lines such as { speaker: 'agent', text: 'Hello' }.");
  }
  const timed = lines.some((line) => line && typeof line === 'object' && ('start' in line || 'end' in line));
  let previousStart = 0;
  return lines.map((line: unknown, i) => {
    if (line === null || typeof line !== 'object') return fail(`line ${i} must be an object such as { speaker: 'agent', text: 'Hello' }.`);
    const { speaker, text, start, end, ...rest } = line as Record<string, unknown>;
    const unknown = Object.keys(rest)[0];
    if (unknown !== undefined) fail(`line ${i} has an unknown field '${unknown}'; a line has speaker, text and optionally start and end.`);
    if (typeof speaker !== 'string' || !speaker.trim()) fail(`line ${i}: speaker must be a non-empty string.`);
    if (typeof text !== 'string' || !text.trim()) fail(`line ${i}: text must be a non-empty string.`);
    if (!timed) return { speaker: speaker as string, text: text as string };
    if (typeof start !== 'number' || typeof end !== 'number' || !Number.isFinite(start) || !Number.isFinite(end)) {
      return fail(`line ${i}: give start and end (seconds from the answer) on every line, or on none to let the sandbox pace the script.`);
    }
    if (start < 0 || end <= start) fail(`line ${i}: need 0 <= start < end, got start ${start} and end ${end}.`);
    if (start < previousStart) fail(`line ${i} starts at ${start} s, before line ${i - 1} (${previousStart} s); list lines in order.`);
    previousStart = start;
    return { speaker: speaker as string, text: text as string, start, end };
  });
}
