import { type ParseArgsConfig, parseArgs } from 'node:util';
import { nearest } from '../core/suggest.js';

type Options = NonNullable<ParseArgsConfig['options']>;
/** What `util.parseArgs` answers for a command's options and its positional arguments. */
export type ParsedCommand<O extends Options> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>
>;

/**
 * A command's arguments, parsed strictly by `util.parseArgs`, or the exit code `usage` gives
 * after saying what was wrong in the user's words: an unknown option with the nearest known one
 * (`--prot`: did you mean --port?), an option without its value. For the commands that take
 * positional arguments beside their options (`check-receiver URL`, `show FILE`).
 */
export function parseCommand<const O extends Options>(
  args: string[],
  options: O,
  usage: (message: string) => number,
): ParsedCommand<O> | number {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    const flag = /'([^']*)'/.exec(message)?.[1] ?? '';
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      const near = flag.startsWith('--') ? nearest(flag.slice(2), Object.keys(options)) : undefined;
      return usage(`Unknown option '${flag}'${near ? `; did you mean --${near}?` : '.'}`);
    }
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') return usage(`${/(--[\w-]+)/.exec(message)?.[1] ?? 'an option'} needs a value.`);
    return usage(message);
  }
}
