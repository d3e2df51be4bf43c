/** What a fake keeps about one injected fault. */
export interface CountedRule<Fault> {
  readonly fault: Fault;
  hits: number;
  remaining: number;
}

/** The handle `injectFault` returns: live counters and a way to withdraw the rule. */
export interface FaultRuleHandle<Fault> {
  readonly fault: Fault;
  /** Requests this rule has failed so far. */
  readonly hits: number;
  /** Requests it will still fail. */
  readonly remaining: number;
  /** Stops the rule from applying to further requests. */
  remove(): void;
}

/** Adds `rule` to `rules` and returns its handle. */
export function addFaultRule<Fault, Rule extends CountedRule<Fault>>(
  rules: Rule[],
  rule: Rule,
): FaultRuleHandle<Fault> {
  rules.push(rule);
  return {
    fault: rule.fault,
    get hits() {
      return rule.hits;
    },
    get remaining() {
      return rule.remaining;
    },
    remove() {
      rule.remaining = 0;
      const index = rules.indexOf(rule);
      if (index !== -1) rules.splice(index, 1);
    },
  };
}
