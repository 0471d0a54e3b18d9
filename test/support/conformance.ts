import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

/**
 * Checks answers against the OpenAPI document the sandbox publishes, the way stripe-mock
 * checks its fixtures against its spec: the status is one the operation lists, the body is
 * valid against its schema (every schema forbids undocumented fields), no header is
 * sent that the response does not document, and every header it marks `required` is sent. test/setup/conformance.ts runs it on every
 * answer the behaviour tests see.
 */
type Json = Record<string, any>;
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;

/** Headers every HTTP answer may carry whatever the document says. */
const ALWAYS = new Set(['content-type']);

export class Conformance {
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly operations: Array<{ pattern: RegExp; template: string; methods: Json }>;

  constructor(private readonly doc: Json) {
    this.ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
    addFormats(this.ajv);
    this.operations = Object.entries(doc.paths as Json).map(([template, methods]) => ({
      template,
      methods,
      pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+')}/?$`),
    }));
  }

  /** What is wrong with `response` as the answer to `method path` (path below the base URL), or []. */
  check(method: string, path: string, status: number, headers: Headers, body: string | null): string[] {
    const problems: string[] = [];
    const where = `${method} ${path} → ${status}`;
    const operation = this.operations.find((o) => o.pattern.test(path));
    const op = operation?.methods[(method === 'HEAD' ? 'get' : method).toLowerCase()];
    if (method === 'OPTIONS') return problems; // CORS preflights: described in docs/interception.md, not operations
    if (!op) {
      // An unknown path or a method the path does not answer: the error envelope, and the common headers (plus Allow).
      if (status < 400) problems.push(`${where}: a success for an operation the document does not describe`);
      this.checkBody(where, this.resolve({ $ref: '#/components/schemas/Error' }), body, problems);
      // Names allowed only: an unknown control path answers without the rate-limit headers /v1 marks required.
      const allowed = Object.fromEntries(Object.keys({ ...this.doc.components.headers, Allow: {} }).map((name) => [name, {}]));
      this.checkHeaders(where, allowed, headers, problems, new Set(['retry-after']));
      return problems;
    }
    const key =
      String(status) in op.responses ? String(status) : `${String(status)[0]}XX` in op.responses ? `${String(status)[0]}XX` : null;
    if (key === null) {
      problems.push(`${where}: status not listed (the operation lists ${Object.keys(op.responses).join(', ')})`);
      return problems;
    }
    const response = op.responses[key];
    const contentType = headers.get('content-type')?.split(';')[0]?.trim();
    if (!response.content) {
      if (body) problems.push(`${where}: a body where the document says none`);
    } else if (!contentType || !(contentType in response.content)) {
      problems.push(`${where}: content type ${contentType} not listed (${Object.keys(response.content).join(', ')})`);
    } else if (contentType === 'application/json' && method !== 'HEAD') {
      this.checkBody(where, this.resolve(response.content[contentType].schema), body, problems, `${op.operationId} ${key}`);
    }
    this.checkHeaders(
      where,
      Object.fromEntries(Object.entries(response.headers ?? {}).map(([name, h]) => [name, this.resolve(h as Json)])),
      headers,
      problems,
    );
    return problems;
  }

  private checkBody(where: string, schema: Json, body: string | null, problems: string[], cacheKey?: string): void {
    let value: unknown;
    try {
      value = body === null || body === '' ? undefined : JSON.parse(body);
    } catch {
      problems.push(`${where}: the body is not JSON: ${body?.slice(0, 80)}`);
      return;
    }
    const key = cacheKey ?? JSON.stringify(schema);
    let validate = this.validators.get(key);
    if (!validate) this.validators.set(key, (validate = this.ajv.compile(schema)));
    if (!validate(value)) problems.push(`${where}: ${this.ajv.errorsText(validate.errors, { dataVar: 'body' })}`);
  }

  private checkHeaders(where: string, documented: Json, headers: Headers, problems: string[], extra = new Set<string>()): void {
    const allowed = new Set([...Object.keys(documented).map((h) => h.toLowerCase()), ...ALWAYS, ...extra]);
    headers.forEach((_, name) => {
      if (!allowed.has(name)) problems.push(`${where}: header ${name} is not documented`);
    });
    for (const [name, header] of Object.entries(documented))
      if ((header as Json).required === true && !headers.has(name)) problems.push(`${where}: the required header ${name} is missing`);
  }

  /** A schema with every `$ref` to the document's components inlined. */
  private resolve(node: any): any {
    if (Array.isArray(node)) return node.map((n) => this.resolve(n));
    if (node === null || typeof node !== 'object') return node;
    if (typeof node.$ref === 'string') {
      const target = node.$ref
        .replace(/^#\//, '')
        .split('/')
        .reduce((at: any, part: string) => at?.[part], this.doc);
      if (!target) throw new Error(`unresolved ${node.$ref}`);
      return this.resolve(target);
    }
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, this.resolve(v)]));
  }
}
