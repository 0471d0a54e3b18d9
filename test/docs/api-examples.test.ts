import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';
import { Sandbox } from '../../src/index.js';
import { typeErrors } from './typecheck.js';

/**
 * docs/api.md is executable: every ```ts fence is a complete program that
 * imports 'svc-sandbox', asserts what it shows with node:assert/strict and closes its
 * sandbox. Each runs here as its own test (named by its section heading), against the
 * sources: the import is pointed at src/index.ts (src/vitest.ts), the snippet written to
 * test/docs/.snippets/run-<pid>/ (gitignored; tsc and vitest skip dot-folders) and imported,
 * so vitest compiles it. A fence that throws fails its test, and so does one that leaves a
 * sandbox listening. The snippets are also type-checked with tsconfig.json's settings, and
 * every public member (the list below, and what src/ declares) must have a section.
 *
 * Fence kinds: ```ts runs as a module with top-level await; ```ts vitest is a vitest test
 * file (it uses svc-sandbox/vitest's `test`), registered here at collection time so vitest
 * itself runs it; ```ts no-run is only shown.
 */

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const docPath = join(root, 'docs/api.md');
// One folder per run (vitest may run in two terminals of one checkout at once); the last
// run's snippets stay for reading a failure, and folders of runs whose process is gone are removed.
const snippetRoot = join(here, '.snippets');
const snippetDir = join(snippetRoot, `run-${process.pid}`);
const entries: Record<string, string> = {
  'svc-sandbox': join(root, 'src/index.ts'),
  'svc-sandbox/vitest': join(root, 'src/vitest.ts'),
};

/** Every public member, as the section headings name it (the text of the heading's first code span, without `sandbox.` and the arguments). */
const MEMBERS = [
  // The sandbox object
  'createSandbox',
  'options.baseUrl',
  'options.seed',
  'options.startTime',
  'options.keys',
  'options.onlyConfiguredKeys',
  'options.aiHandler',
  'options.dialInterval',
  'options.webhookTimeout',
  'options.templates',
  'options.clock',
  'options.deprecation',
  'options.onUnhandledRequest',
  'options.productionHosts',
  'options.allowHosts',
  'Sandbox',
  'baseUrl',
  'seed',
  'listen',
  'close',
  'advance',
  'advanceUntil',
  'now',
  'handle',
  'fetch',
  'reset',
  'openapi',
  'internalErrors',
  'coverage',
  // Scripting namespaces
  'calls.get',
  'calls.list',
  'calls.answer',
  'calls.hangUp',
  'calls.inbound',
  'network.setBehavior',
  'network.queueBehavior',
  'network.setMessageBehavior',
  'network.queueMessageBehavior',
  'network.clearBehavior',
  'faults.inject',
  'faults.list',
  'faults.clear',
  'events.list',
  'events.subscribe',
  'messages.inbound',
  'messages.get',
  'webhooks.deliveries',
  'webhooks.attempts',
  'webhooks.deadLetters',
  'webhooks.replay',
  'webhooks.replayAll',
  'webhooks.subscribe',
  'recordings.get',
  'recordings.setTiming',
  'transcripts.get',
  'transcripts.setScript',
  'transcripts.openStreams',
  'keys.create',
  'keys.list',
  'keys.revoke',
  // Other exports
  'verifyWebhook',
  'WEBHOOK_RETRY_SCHEDULE',
  'MAGIC_NUMBERS',
  'MAGIC_MESSAGE_NUMBERS',
  'EVENT_TYPES',
  'SandboxError',
  'mergeCoverage',
  'coverageSummary',
  'startServer',
  // svc-sandbox/vitest
  'test',
  'toHaveEmitted',
];

interface Section {
  heading: string;
  member: string | null;
  body: string;
}
interface Snippet {
  name: string;
  section: Section;
  kind: 'run' | 'vitest' | 'no-run';
  code: string;
  line: number;
}

/** The member a heading documents: its first code span, without `sandbox.` and the arguments. */
function memberOf(heading: string): string | null {
  const span = /`([^`]+)`/.exec(heading)?.[1];
  return span ? span.replace(/^sandbox\./, '').replace(/\(.*$/, '') : null;
}

function parse(markdown: string): { sections: Section[]; snippets: Snippet[] } {
  const sections: Section[] = [];
  const snippets: Snippet[] = [];
  let section: Section = { heading: '(top)', member: null, body: '' };
  let fence: { info: string; line: number; lines: string[] } | null = null;
  const lines = markdown.split('\n');
  lines.forEach((line, i) => {
    if (fence) {
      if (/^```\s*$/.test(line)) {
        const [lang, kind = 'run'] = fence.info.split(/\s+/);
        if (lang === 'ts') {
          if (kind !== 'run' && kind !== 'vitest' && kind !== 'no-run')
            throw new Error(`docs/api.md:${fence.line}: unknown fence kind "${kind}"`);
          const count = snippets.filter((s) => s.section === section).length;
          snippets.push({
            name: count === 0 ? section.heading : `${section.heading} (${count + 1})`,
            section,
            kind,
            code: fence.lines.join('\n'),
            line: fence.line,
          });
        }
        fence = null;
      } else {
        fence.lines.push(line);
      }
      section.body += `${line}\n`;
      return;
    }
    const open = /^```(.*)$/.exec(line);
    if (open) {
      fence = { info: open[1]!.trim(), line: i + 1, lines: [] };
      section.body += `${line}\n`;
      return;
    }
    const heading = /^#{2,4}\s+(.*)$/.exec(line);
    if (heading) {
      section = { heading: heading[1]!.trim(), member: memberOf(heading[1]!), body: '' };
      sections.push(section);
      return;
    }
    section.body += `${line}\n`;
  });
  if (fence) throw new Error('docs/api.md: a fence is never closed');
  return { sections, snippets };
}

const { sections, snippets } = parse(readFileSync(docPath, 'utf8'));
const runnable = snippets.filter((s) => s.kind !== 'no-run');

/** The snippet with its package imports pointed at the sources. */
function rewrite(code: string): string {
  return code.replace(/(from\s+|import\s*\(\s*)(['"])(svc-sandbox(?:\/vitest)?)\2/g, (_, lead: string, quote: string, name: string) => {
    return `${lead}${quote}${entries[name]!.split('\\').join('/')}${quote}`;
  });
}

const slug = (name: string, i: number) =>
  `${String(i).padStart(3, '0')}-${name
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 60)}`;

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};
mkdirSync(snippetRoot, { recursive: true });
for (const name of readdirSync(snippetRoot)) {
  const pid = /^run-(\d+)$/.exec(name)?.[1];
  if (pid === undefined || Number(pid) === process.pid || !alive(Number(pid)))
    rmSync(join(snippetRoot, name), { recursive: true, force: true });
}
mkdirSync(snippetDir, { recursive: true });
writeFileSync(join(snippetRoot, 'README.md'), 'Generated by test/docs/api-examples.test.ts from docs/api.md (gitignored).\n');
const files = new Map<Snippet, string>();
runnable.forEach((snippet, i) => {
  const file = join(snippetDir, `${slug(snippet.name, i)}${snippet.kind === 'vitest' ? '.vitest' : ''}.ts`);
  writeFileSync(file, `// docs/api.md:${snippet.line}: ${snippet.name}\n${rewrite(snippet.code)}\n`);
  files.set(snippet, file);
});

// Every sandbox an example makes listen must be closed by the example, and none may have
// recorded an internal error (an exception inside the sandbox, answered as a 500).
let tracking: { listening: Set<Sandbox>; failures: string[] } | null = null;
const { listen, close } = Sandbox.prototype;
Sandbox.prototype.listen = function (this: Sandbox) {
  const result = listen.call(this);
  tracking?.listening.add(this);
  return result;
};
Sandbox.prototype.close = function (this: Sandbox) {
  if (tracking) {
    tracking.listening.delete(this);
    const errors = this.internalErrors();
    if (errors.length > 0) tracking.failures.push(`internal errors: ${errors.map((e) => String(e.error)).join('; ')}`);
  }
  close.call(this);
};

/** Runs one example module; fails if it throws, leaves a sandbox listening, or a sandbox recorded an internal error. */
async function run(file: string): Promise<void> {
  tracking = { listening: new Set(), failures: [] };
  let failed = false;
  let error: unknown;
  try {
    await import(pathToFileURL(file).href);
  } catch (e) {
    failed = true;
    error = e;
  }
  const { listening, failures } = tracking;
  tracking = null;
  for (const sandbox of listening) sandbox.close();
  if (failed) throw error;
  expect(listening.size, 'sandboxes the example left listening (an example must close its sandbox)').toBe(0);
  expect(failures).toEqual([]);
}

describe('docs/api.md', () => {
  test('has a section, with a runnable example, for every public member', () => {
    const documented = new Map(sections.filter((s) => s.member !== null).map((s) => [s.member!, s]));
    expect(
      MEMBERS.filter((m) => !documented.has(m)),
      'members without a section',
    ).toEqual([]);
    const withoutExample = MEMBERS.filter((m) => !runnable.some((s) => s.section.member === m));
    expect(withoutExample, 'sections without a runnable example').toEqual([]);
    expect(documented.get('SandboxError')!.body).toMatch(/\.code\b[\s\S]*\.param\b|\.param\b[\s\S]*\.code\b/);
  });

  test('every public value export of svc-sandbox has a section', async () => {
    const api = await import('../../src/index.js');
    const members = new Set(sections.map((s) => s.member));
    expect(Object.keys(api).filter((name) => !members.has(name))).toEqual([]);
  });

  test('has a section for every public member of Sandbox and of its scripting namespaces (read from the source)', () => {
    // Sandbox is SandboxBase (the lifecycle and the namespaces) with scenarios and triggers on top.
    const classMembers = (file: string, name: string) => {
      const source = ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest);
      return source.statements.find((s): s is ts.ClassDeclaration => ts.isClassDeclaration(s) && s.name?.text === name)!.members;
    };
    const isHidden = (member: ts.ClassElement) =>
      ts.canHaveModifiers(member) &&
      (ts.getModifiers(member) ?? []).some((m) => m.kind === ts.SyntaxKind.PrivateKeyword || m.kind === ts.SyntaxKind.ProtectedKeyword);
    const names = new Set(
      [...classMembers('src/root/sandbox-base.ts', 'SandboxBase'), ...classMembers('src/sandbox.ts', 'Sandbox')]
        .filter((m) => m.name && ts.isIdentifier(m.name) && !isHidden(m))
        .map((m) => (m.name as ts.Identifier).text),
    );
    const sandbox = new Sandbox();
    const members = [...names].flatMap((name) => {
      const value: unknown = (sandbox as unknown as Record<string, unknown>)[name];
      return value !== null && typeof value === 'object' ? Object.keys(value).map((key) => `${name}.${key}`) : [name];
    });
    sandbox.close();
    expect(members.length).toBeGreaterThan(40);
    const documented = new Set(sections.map((s) => s.member));
    expect(members.filter((m) => !documented.has(m))).toEqual([]);
  });

  test('its links lead to pages and headings that exist', () => {
    const slug = (heading: string) =>
      heading
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-');
    const anchors = (file: string) => {
      const text = readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```/gm, '');
      return new Set([...text.matchAll(/^#{1,6}\s+(.*)$/gm)].map((m) => slug(m[1]!.trim())));
    };
    const broken: string[] = [];
    for (const [, target] of readFileSync(docPath, 'utf8').matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue;
      const [path, anchor] = target!.split('#');
      const file = path ? resolve(dirname(docPath), path) : docPath;
      if (!existsSync(file)) broken.push(target!);
      else if (anchor !== undefined && file.endsWith('.md') && !anchors(file).has(anchor)) broken.push(target!);
    }
    expect(broken).toEqual([]);
  });

  test('names every exported type', () => {
    const doc = readFileSync(docPath, 'utf8');
    const names = (file: string) =>
      [...readFileSync(join(root, file), 'utf8').matchAll(/export (?:type \{([^}]*)\}|interface (\w+))/g)].flatMap((m) =>
        m[2]
          ? [m[2]]
          : m[1]!
              .split(',')
              .map((n) => n.trim())
              .filter(Boolean),
      );
    const types = [...names('src/index.ts'), ...names('src/vitest.ts')];
    expect(types.length).toBeGreaterThan(50);
    expect(types.filter((name) => !doc.includes(`\`${name}\``))).toEqual([]);
  });

  test('every example is a complete program: imports the package, asserts, closes what it opens', () => {
    const problems: string[] = [];
    for (const s of runnable) {
      const where = `${s.name} (docs/api.md:${s.line})`;
      if (!/from ['"]svc-sandbox(\/vitest)?['"]/.test(s.code)) problems.push(`${where}: does not import from 'svc-sandbox'`);
      const imports = [...s.code.matchAll(/from\s+['"]([^'"]+)['"]/g)].map((m) => m[1]!);
      for (const spec of imports) if (!/^(svc-sandbox(\/vitest)?|vitest|node:.+)$/.test(spec)) problems.push(`${where}: imports ${spec}`);
      if (s.kind === 'run' && !s.code.includes("from 'node:assert/strict'"))
        problems.push(`${where}: asserts nothing (import node:assert/strict)`);
      if (/createSandbox\(/.test(s.code) && !/\.close\(\)/.test(s.code)) problems.push(`${where}: never closes its sandbox`);
      if (/startServer\(/.test(s.code) && !/await \w+\.close\(\)/.test(s.code)) problems.push(`${where}: never closes its server`);
      if (/setTimeout|setInterval|\bsleep\(/.test(s.code)) problems.push(`${where}: waits in real time; use the virtual clock`);
      const lines = s.code.split('\n').filter((l) => l.trim() !== '').length;
      if (lines > 25) problems.push(`${where}: ${lines} lines; keep examples short`);
    }
    expect(problems).toEqual([]);
  });

  test('every example type-checks as a user would compile it (tsconfig.json settings)', () => {
    const text = typeErrors(root, [...files.values()], snippetDir);
    expect(text).toEqual([]);
  }, 120_000);

  describe('examples', () => {
    for (const snippet of runnable) {
      const file = files.get(snippet)!;
      if (snippet.kind === 'vitest') {
        // A vitest test file: its tests are collected here, so vitest runs them as it would the user's file.
        describe(snippet.name, async () => {
          await import(pathToFileURL(file).href);
        });
      } else {
        test(snippet.name, () => run(file));
      }
    }
  });
});
