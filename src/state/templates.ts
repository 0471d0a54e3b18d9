import { SandboxError } from '../core/errors.js';
import { readFixture } from '../core/fixtures.js';

/** A message template: its text, with `{{variable}}` placeholders. */
export interface MessageTemplate {
  id: string;
  body: string;
  /** The distinct variable names the body uses, in order of first use. */
  variables: string[];
}

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;
const TEMPLATE_ID = /^[A-Za-z0-9_.-]{1,64}$/;
/** The most characters a message body may have (see docs/messaging.md). */
export const MAX_BODY_CHARS = 1600;

function parse(id: string, body: string): MessageTemplate {
  const variables = [...new Set([...body.matchAll(PLACEHOLDER)].map((m) => m[1]!))];
  return { id, body, variables };
}

/**
 * Validates the `templates` sandbox option: template id → body text.
 *
 * @example
 * checkTemplates({ welcome: 'Welcome, {{name}}!' }, 'createSandbox: templates');
 */
export function checkTemplates(value: unknown, where: string): Map<string, string> {
  const out = new Map<string, string>();
  if (value === undefined) return out;
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new SandboxError(`${where} must be an object of template id → text, e.g. { welcome: 'Welcome, {{name}}!' }.`);
  for (const [id, body] of Object.entries(value)) {
    if (!TEMPLATE_ID.test(id)) throw new SandboxError(`${where}: '${id}' is not a template id; use 1 to 64 letters, digits, _ . or -.`);
    if (typeof body !== 'string' || body.length === 0 || body.length > MAX_BODY_CHARS)
      throw new SandboxError(`${where}.${id} must be a text of 1 to ${MAX_BODY_CHARS} characters with {{variable}} placeholders.`);
    out.set(id, body);
  }
  return out;
}

/**
 * The templates a sandbox knows: those of `fixtures/message-templates.json`, plus (or
 * replaced by, for the same id) those of the `templates` option.
 */
export class Templates {
  private readonly byId = new Map<string, MessageTemplate>();

  constructor(extra: ReadonlyMap<string, string>, fixture: unknown = readFixture('message-templates.json')) {
    const builtIn = (fixture as { templates: Record<string, string> }).templates;
    for (const [id, body] of [...Object.entries(builtIn), ...extra]) this.byId.set(id, parse(id, body));
  }

  get(id: string): MessageTemplate | undefined {
    return this.byId.get(id);
  }

  get ids(): string[] {
    return [...this.byId.keys()];
  }

  /** The body with every placeholder replaced; `values` must hold every variable. */
  render(template: MessageTemplate, values: Readonly<Record<string, string>>): string {
    return template.body.replace(PLACEHOLDER, (_, name: string) => values[name]!);
  }
}
