import { readFixture } from '../core/fixtures.js';

/** A message template: its text, with `{{variable}}` placeholders. */
export interface MessageTemplate {
  id: string;
  body: string;
  /** The distinct variable names the body uses, in order of first use. */
  variables: string[];
}

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;
/** A template id: what the `templates` option and `template.id` accept. */
export const TEMPLATE_ID = /^[A-Za-z0-9_.-]{1,64}$/;

function parse(id: string, body: string): MessageTemplate {
  const variables = [...new Set([...body.matchAll(PLACEHOLDER)].flatMap(([, name]) => (name === undefined ? [] : [name])))];
  return { id, body, variables };
}

/**
 * The templates a sandbox knows: those of `fixtures/message-templates.json`, plus (or
 * replaced by, for the same id) those of the `templates` option.
 */
/** A fixture's templates, parsed once per process (immutable data, frozen). */
const parsedFixtures = new WeakMap<object, ReadonlyMap<string, MessageTemplate>>();

function builtIns(fixture: unknown): ReadonlyMap<string, MessageTemplate> {
  let parsed = parsedFixtures.get(fixture as object);
  if (!parsed) {
    const entries = Object.entries((fixture as { templates: Record<string, string> }).templates);
    parsed = new Map(entries.map(([id, body]) => [id, Object.freeze(parse(id, body))]));
    parsedFixtures.set(fixture as object, parsed);
  }
  return parsed;
}

export class Templates {
  private readonly builtIn: ReadonlyMap<string, MessageTemplate>;
  /** The `templates` option's own: the same id replaces a built-in one. */
  private readonly own = new Map<string, MessageTemplate>();

  constructor(extra: ReadonlyMap<string, string>, fixture: unknown = readFixture('message-templates.json')) {
    this.builtIn = builtIns(fixture);
    for (const [id, body] of extra) this.own.set(id, parse(id, body));
  }

  get(id: string): MessageTemplate | undefined {
    return this.own.get(id) ?? this.builtIn.get(id);
  }

  get ids(): string[] {
    return [...new Set([...this.builtIn.keys(), ...this.own.keys()])];
  }

  /** The body with every placeholder replaced; `values` must hold every variable. */
  render(template: MessageTemplate, values: Readonly<Record<string, string>>): string {
    return template.body.replace(PLACEHOLDER, (whole, name: string) => values[name] ?? whole);
  }
}
