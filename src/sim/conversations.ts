import type { AnsweredBy } from './carrier.js';
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
  aiReceptionist: boolean;
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
 * script: voicemail gets `voicemail` (on an AI receptionist's call, the receptionist leaves the
 * message), the AI receptionist's other calls `receptionist`, other calls one of `sales`,
 * `support`, `billing` chosen by a hash of the call id (so by the seed). Placeholders such as
 * `{customer}` are filled the same way.
 */
export class ConversationLibrary {
  private fixtures: Map<ScriptName, ConversationFixture> | null = null;

  /** The lines of the conversation `call` carries; `assistant` is the AI receptionist's name. */
  scriptFor(call: ScriptedCall, assistant: string): ConversationLine[] {
    const name: ScriptName =
      call.answeredBy === 'voicemail'
        ? 'voicemail'
        : call.aiReceptionist
          ? 'receptionist'
          : (HUMAN_SCRIPTS[hash(`${call.id}:script`) % HUMAN_SCRIPTS.length] ?? HUMAN_SCRIPTS[0]);
    const fixture = this.load().get(name);
    if (fixture === undefined) throw new Error(`conversations: no fixture for the ${name} script`);
    const values: Record<string, string> = { assistant: capitalise(assistant) };
    for (const [variable, choices] of Object.entries(fixture.variables)) {
      const choice = choices[hash(`${call.id}:${variable}`) % choices.length];
      if (choice !== undefined) values[variable] = choice;
    }
    if (call.agent !== null) values.agent = capitalise(call.agent);
    const fill = (text: string) => text.replace(/\{(\w+)\}/g, (whole, key: string) => values[key] ?? whole);
    // The receptionist's voicemail: it leaves the message in its own name (its agent is the assistant).
    const speaker = (who: string) => (name === 'voicemail' && call.aiReceptionist && who === 'caller' ? 'receptionist' : who);
    return fixture.lines.map((line) => ({ speaker: speaker(line.speaker), text: fill(line.text) }));
  }

  private load(): Map<ScriptName, ConversationFixture> {
    if (!this.fixtures) {
      this.fixtures = new Map(SCRIPT_NAMES.map((name) => [name, readFixture(`conversations/${name}.json`) as ConversationFixture]));
    }
    return this.fixtures;
  }
}
