import type { AnyStateMachine, AnyStateNode, AnyTransitionDefinition, InspectionEvent } from 'xstate';

/**
 * What a machine can do, read from the machine itself (docs/coverage.md): every state and every
 * transition of its configuration, so a state or transition added to the machine shows up in
 * coverage with no list to keep in step.
 */
export interface MachineGraph {
  /** Every state, by its path (`ringing`; `parent.child` for a nested one), in document order. */
  states: string[];
  /** Every transition, named `source → target (event)` (see {@link transitionName}), in document order. */
  transitions: string[];
  /** The states the machine starts in. */
  initial: string[];
}

const statePath = (node: AnyStateNode): string => node.path.join('.');

/**
 * A transition's name: `ringing → answered (ANSWERED)`; a delayed one reads `(after ringTime)`,
 * an eventless one `(always)`, and a guarded one adds its guard: `(after ringTime [networkAnswers])`.
 * A transition without a target (an action only) names its source twice.
 */
export function transitionName(t: AnyTransitionDefinition): string {
  const from = statePath(t.source);
  const to = t.target?.length ? t.target.map(statePath).join(', ') : from;
  const after = 'xstate.after.';
  const event = t.eventType.startsWith(after)
    ? `after ${t.eventType.slice(after.length, t.eventType.length - t.source.id.length - 1)}`
    : t.eventType === ''
      ? 'always'
      : t.eventType;
  const guard = t.guard === undefined ? '' : ` [${guardName(t.guard)}]`;
  return `${from} → ${to} (${event}${guard})`;
}

/** A guard as a transition's name shows it: its name (a string), its function's name, or its `type`. */
function guardName(guard: NonNullable<AnyTransitionDefinition['guard']>): string {
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'function') return guard.name || 'guard';
  return (guard as { type?: string }).type ?? 'guard';
}

/** Every state node below `node`, depth first, in document order. */
function descendants(node: AnyStateNode): AnyStateNode[] {
  return Object.values(node.states as Record<string, AnyStateNode>).flatMap((child) => [child, ...descendants(child)]);
}

const graphs = new WeakMap<AnyStateMachine, MachineGraph>();

/** The states and transitions of `machine`'s configuration (computed once per machine). */
export function machineGraph(machine: AnyStateMachine): MachineGraph {
  let graph = graphs.get(machine);
  if (!graph) {
    const nodes = descendants(machine.root);
    const transitions = nodes.flatMap((node) => [...[...node.transitions.values()].flat(), ...(node.always ?? [])]);
    graph = {
      states: nodes.map(statePath),
      transitions: [...new Set(transitions.map(transitionName))],
      initial: (machine.root.initial?.target ?? []).map(statePath),
    };
    graphs.set(machine, graph);
  }
  return graph;
}

/**
 * Counts what the actors of one machine did: the states they entered and the transitions they
 * took, as XState reports them to an inspector (pass {@link inspect} to `createActor`). It costs
 * a map update per transition taken, off the request path (a call's actor starts lazily); its
 * counts outlive `reset()`, as coverage does (docs/coverage.md).
 */
export class MachineCoverage {
  /** Transitions taken, by the machine's own transition objects (named only when read). */
  private readonly taken = new Map<AnyTransitionDefinition, number>();
  private started = 0;

  constructor(private readonly machine: AnyStateMachine) {}

  /** The inspector to hand to `createActor(machine, { inspect })`. */
  readonly inspect = (event: InspectionEvent): void => {
    if (event.type === '@xstate.microstep') {
      for (const t of event._transitions) this.taken.set(t, (this.taken.get(t) ?? 0) + 1);
    } else if (event.type === '@xstate.actor') {
      this.started += 1;
    }
  };

  /** Every state and transition of the machine with how often it was entered or taken (0: never). */
  counts(): { states: Record<string, number>; transitions: Record<string, number> } {
    const graph = machineGraph(this.machine);
    const states: Record<string, number> = Object.fromEntries(graph.states.map((s) => [s, 0]));
    const transitions: Record<string, number> = Object.fromEntries(graph.transitions.map((t) => [t, 0]));
    for (const s of graph.initial) states[s] = (states[s] ?? 0) + this.started;
    for (const [t, n] of this.taken) {
      const name = transitionName(t);
      transitions[name] = (transitions[name] ?? 0) + n;
      for (const target of t.target ?? []) states[statePath(target)] = (states[statePath(target)] ?? 0) + n;
    }
    return { states, transitions };
  }
}
