// What replacing src/core/schema.ts with valibot 1 would take, for bench/schema.mjs: the same
// three request shapes as bench/schema-zod.mjs, with the code needed to keep our messages and
// ApiError values. valibot is not a dependency of the project: bench/schema.mjs passes it in
// from a scratch install, with the project's helpers.

// ---- kit: the generic part, what would replace src/core/schema.ts ----
export function valibotKit({ v, toJsonSchema, badRequest, missing, nearest }) {
  const show = (value) =>
    value === null
      ? 'null'
      : Array.isArray(value)
        ? 'an array'
        : typeof value === 'string'
          ? JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)
          : typeof value === 'object'
            ? 'an object'
            : String(value);
  const pathOf = (path) => path.map((k, i) => (typeof k === 'number' ? `[${k}]` : i ? `.${k}` : k)).join('');
  // valibot writes a message when the issue is made, before its path is known: messages hold
  // FIELD where the field's name goes, and firstError() puts it in (first occurrence only,
  // which always comes before any echoed input).
  const FIELD = '\u0000';
  const hints = new WeakMap();
  const hinted = (schema, hint) => {
    hints.set(schema, hint);
    return schema;
  };

  function string(o) {
    const min = o.min ?? 1;
    const hint = o.patternHint ?? `a string (${o.description})`;
    const items = [
      v.string((iss) => `${FIELD} must be a string, got ${show(iss.input)}.`),
      v.metadata({ description: o.description, ...(o.example ? { examples: [o.example] } : {}) }),
      v.minLength(min, () => `${FIELD} must not be empty: ${o.description}.`),
    ];
    if (o.max !== undefined)
      items.push(v.maxLength(o.max, (iss) => `${FIELD} must be at most ${o.max} characters, got ${iss.input.length}.`));
    if (o.pattern)
      items.push(
        v.regex(o.pattern, (iss) => `${FIELD} must be ${o.patternHint ?? `a string matching ${o.pattern}`} (got ${show(iss.input)}).`),
      );
    return hinted(v.pipe(...items), hint);
  }
  const phoneNumber = (E164) => (description) =>
    string({ description, pattern: E164, patternHint: 'E.164, e.g. +14155550123', example: '+14155550123' });
  function oneOf(values, description) {
    const list = values.map((x) => `"${x}"`).join(', ');
    const message = (iss) => {
      const guess = typeof iss.input === 'string' ? nearest(iss.input, values) : undefined;
      return `${FIELD} must be one of ${list}, got ${show(iss.input)}${guess ? `: did you mean "${guess}"?` : '.'}`;
    };
    return hinted(v.pipe(v.picklist(values, message), v.description(description)), `one of ${list}`);
  }
  const boolean = (description) =>
    hinted(
      v.pipe(
        v.boolean((iss) => `${FIELD} must be a boolean (true or false), got ${show(iss.input)}.`),
        v.description(description),
      ),
      'true or false',
    );
  function queryInteger(o) {
    const range = `an integer from ${o.min} to ${o.max}`;
    const ok = (x) => /^-?\d+$/.test(x) && Number(x) >= o.min && Number(x) <= o.max;
    const message = (iss) => `${FIELD} must be ${range}, got ${show(iss.input)}.`;
    return hinted(
      v.pipe(
        v.string(message),
        v.metadata({ description: o.description, type: 'integer', minimum: o.min, maximum: o.max }),
        v.check(ok, message),
        v.transform(Number),
      ),
      range,
    );
  }
  const ISO_8601 = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
  function dayExists(text) {
    const [year, month, day] = [Number(text.slice(0, 4)), Number(text.slice(5, 7)), Number(text.slice(8, 10))];
    const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
    return day <= ([31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0);
  }
  function dateTime(description) {
    const hint = 'an ISO 8601 date-time, e.g. 2026-01-01T00:00:00Z';
    const message = (iss) => `${FIELD} must be ${hint} (got ${show(iss.input)}).`;
    return hinted(
      v.pipe(
        v.string(message),
        v.metadata({ description, format: 'date-time' }),
        v.check((s) => ISO_8601.test(s) && dayExists(s) && !Number.isNaN(Date.parse(s)), message),
        v.transform(Date.parse),
      ),
      hint,
    );
  }
  function array(item, o) {
    const hint = `an array of ${o.min} to ${o.max} items, each ${hints.get(item)}`;
    const length = (iss) => `${FIELD} must hold ${o.min} to ${o.max} items, got ${iss.input.length}.`;
    // The length first, as the kit does: valibot skips a pipe's checks once the items failed.
    return hinted(
      v.pipe(
        v.array(v.unknown(), (iss) => `${FIELD} must be an array, got ${show(iss.input)}.`),
        v.description(o.description),
        v.minLength(o.min, length),
        v.maxLength(o.max, length),
        v.array(item),
      ),
      hint,
    );
  }
  const optional = (schema) => hinted(v.optional(schema), hints.get(schema));
  function object(shape, o) {
    const keys = Object.keys(shape);
    const label = o.label ?? 'field';
    const hint = `an object with ${keys.map((k) => `\`${k}\``).join(', ')}`;
    const message = (iss) => {
      if (iss.expected === 'never') {
        const guess = nearest(iss.input, keys);
        return `Unknown ${label} ${FIELD}: ${guess ? `did you mean \`${guess}\`?` : `remove it. Accepted: ${keys.join(', ')}.`}`;
      }
      if (iss.input === undefined && iss.path) return `${FIELD} is required: ${hints.get(shape[iss.path[0].key])}.`;
      return `${FIELD} must be an object, got ${show(iss.input)}.`;
    };
    // valibot takes an array for an object: refuse it first.
    const notArray = v.custom(
      (x) => !Array.isArray(x),
      (iss) => `${FIELD} must be an object, got ${show(iss.input)}.`,
    );
    return hinted(v.pipe(notArray, v.strictObject(shape, message), v.description(o.description)), hint);
  }
  const refine = (base, ok, tail, hint) =>
    hinted(
      v.pipe(
        base,
        v.check(ok, (iss) => `${FIELD} ${tail(iss.input)}`),
      ),
      hint,
    );

  /**
   * Without abortEarly valibot collects every issue; our kit stops at the first, checking an
   * object's unknown keys before its fields. Report the issue our kit would, as our ApiError.
   */
  function firstError(issues) {
    const keysOf = (iss) => (iss.path ?? []).map((p) => p.key);
    const at = (iss) => (iss.expected === 'never' ? keysOf(iss).slice(0, -1) : keysOf(iss)); // an unknown key belongs to its object
    let first = issues[0];
    for (const iss of issues) {
      const a = at(iss),
        f = at(first);
      if (a.length < f.length && a.every((k, i) => k === f[i])) first = iss;
    }
    const path = keysOf(first);
    const param = pathOf(path) || undefined;
    const message = param
      ? first.message.replace(FIELD, `\`${param}\``)
      : first.message.replace(`${FIELD} must be an object`, 'The body must be a JSON object');
    return first.input === undefined && first.expected?.startsWith('"') ? missing(message, param) : badRequest(message, param);
  }
  const parser = (schema) => (value) => {
    const result = v.safeParse(schema, value);
    if (result.success) return result.output;
    throw firstError(result.issues);
  };
  const openapi = (schema) => {
    // 'input' stops at a pipe's second schema (our array guard, the array's items); 'ignore' merges them.
    const { $schema, ...rest } = toJsonSchema(schema, { target: 'draft-2020-12', typeMode: 'ignore', errorMode: 'ignore' });
    return rest;
  };
  return {
    v,
    show,
    hinted,
    string,
    phoneNumber,
    oneOf,
    boolean,
    queryInteger,
    dateTime,
    array,
    optional,
    object,
    refine,
    parser,
    openapi,
    FIELD,
  };
}
// ---- end kit ----

// ---- shapes: the three request shapes of the bench, as they would be written with valibot ----
export function valibotShapes(k, { E164, MAX_BODY_CHARS }) {
  const { v } = k;
  const phoneNumber = k.phoneNumber(E164);
  const placeCallBody = k.object(
    {
      to: k.optional(phoneNumber('Destination number in E.164.')),
      from: k.optional(phoneNumber('Originating number in E.164.')),
      ai_receptionist: k.optional(k.boolean('When true, an AI receptionist handles the call.')),
      campaign: k.optional(
        k.object(
          {
            to: k.array(phoneNumber('A number to dial.'), { description: 'Numbers to dial, in order.', min: 1, max: 1000 }),
            from: phoneNumber('Originating number of every call.'),
            ai_receptionist: k.optional(k.boolean('When true, an AI receptionist handles every call.')),
          },
          { description: 'A dialer campaign: its calls are dialled one after another on the clock.' },
        ),
      ),
    },
    { description: 'Start an outbound call, or a dialer campaign.' },
  );

  const mediaUrl = k.refine(
    v.pipe(
      k.string({ description: 'An https URL of the attachment', max: 2048, example: 'https://example.com/cat.jpg' }),
      v.metadata({ format: 'uri' }),
    ),
    (url) => !(/[\x00-\x1f\x7f]/.test(url) || !URL.canParse(url) || new URL(url).protocol !== 'https:'),
    (url) => `must be an https URL, e.g. "https://example.com/cat.jpg" (got ${k.show(url)}).`,
    'an https URL, e.g. "https://example.com/cat.jpg"',
  );
  // Like z.record(), v.record() drops a `__proto__` variable silently.
  const variablesHint = 'an object of variable name → text, e.g. {"name": "Ada"}';
  const variables = k.hinted(
    v.pipe(
      v.custom(
        (x) => !Array.isArray(x),
        (iss) => `${k.FIELD} must be ${variablesHint} (got ${k.show(iss.input)}).`,
      ),
      v.record(
        v.string(),
        v.union([v.string(), v.number()], (iss) => `${k.FIELD} must be a string or a number, got ${k.show(iss.input)}.`),
        (iss) => `${k.FIELD} must be ${variablesHint} (got ${k.show(iss.input)}).`,
      ),
      v.description("Values of the template's {{variables}}."),
      v.transform((vars) => Object.fromEntries(Object.entries(vars).map(([name, x]) => [name, String(x)]))),
    ),
    variablesHint,
  );
  const sendMessageBody = k.object(
    {
      from: phoneNumber('One of your provisioned numbers with SMS enabled.'),
      to: phoneNumber('The recipient, in E.164.'),
      body: k.optional(k.string({ description: 'The text', max: MAX_BODY_CHARS })),
      media_urls: k.optional(k.array(mediaUrl, { description: 'Attachments; any makes the message an MMS.', min: 0, max: 10 })),
      template: k.optional(
        k.object(
          {
            id: k.string({ description: 'A template id (fixtures/message-templates.json or the `templates` option)', max: 64 }),
            variables: k.optional(variables),
          },
          { description: "Send a template's text instead of `body`." },
        ),
      ),
    },
    { description: 'Send an SMS, or an MMS when it has media: `body`, `media_urls` and/or `template`.' },
  );

  const LIST_PARAMS = {
    limit: k.optional(k.queryInteger({ description: 'Items per page (default 50).', min: 1, max: 200 })),
    cursor: k.optional(k.string({ description: 'The next_cursor of the previous page.', max: 200 })),
    created_after: k.optional(k.dateTime('Only items created strictly after this instant.')),
    created_before: k.optional(k.dateTime('Only items created strictly before this instant.')),
  };
  const listQuery = (filters, description) => k.object({ ...LIST_PARAMS, ...filters }, { description, label: 'query parameter' });
  const listCallsQuery = listQuery(
    {
      status: k.optional(k.oneOf(['ringing', 'answered', 'completed'], 'Only calls in this status.')),
      direction: k.optional(k.oneOf(['outbound', 'inbound'], 'Only calls in this direction.')),
      campaign_id: k.optional(k.string({ description: 'Only calls of this dialer campaign.', max: 64 })),
    },
    'List calls, newest first.',
  );
  return { placeCallBody, sendMessageBody, listCallsQuery };
}
// ---- end shapes ----
