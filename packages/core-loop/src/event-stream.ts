import type { AssistantMessage } from '@switchboard/hooks';
import type { AssistantStreamEvent } from './types.ts';

/**
 * A push-based async stream of events with a final result. The producer calls `push()` and
 * ends it with a terminal event or `end()`; one consumer iterates it with `for await`, and
 * anyone may await `result()`. Events pushed after the end are ignored.
 */
export class EventStream<Event, Result> implements AsyncIterable<Event> {
  #queue: Event[] = [];
  #head = 0;
  #waiting: ((item: IteratorResult<Event>) => void) | undefined;
  #ended = false;
  /** Set when the consumer stopped iterating: later events are not buffered. */
  #detached = false;
  #resolveResult!: (result: Result) => void;
  readonly #result: Promise<Result>;
  readonly #isTerminal: (event: Event) => boolean;
  readonly #resultOf: (event: Event) => Result;

  constructor(isTerminal: (event: Event) => boolean, resultOf: (event: Event) => Result) {
    this.#isTerminal = isTerminal;
    this.#resultOf = resultOf;
    this.#result = new Promise<Result>((resolve) => {
      this.#resolveResult = resolve;
    });
  }

  /** Adds an event; a terminal event also settles `result()` and ends the stream. */
  push(event: Event): void {
    if (this.#ended) return;
    if (this.#isTerminal(event)) {
      this.#ended = true;
      this.#resolveResult(this.#resultOf(event));
    }
    const waiting = this.#waiting;
    if (waiting !== undefined) {
      this.#waiting = undefined;
      waiting({ value: event, done: false });
    } else if (!this.#detached) {
      this.#queue.push(event);
    }
  }

  /** Ends the stream without a terminal event; `result` settles `result()` if given. */
  end(result?: Result): void {
    if (this.#ended) return;
    this.#ended = true;
    if (result !== undefined) this.#resolveResult(result);
    const waiting = this.#waiting;
    if (waiting !== undefined) {
      this.#waiting = undefined;
      waiting({ value: undefined, done: true });
    }
  }

  /** True once a terminal event was pushed or `end()` was called. */
  get ended(): boolean {
    return this.#ended;
  }

  /** The final result, available once the terminal event has been pushed. */
  result(): Promise<Result> {
    return this.#result;
  }

  [Symbol.asyncIterator](): AsyncIterator<Event> {
    return {
      next: (): Promise<IteratorResult<Event>> => {
        if (this.#head < this.#queue.length) {
          const value = this.#queue[this.#head] as Event;
          this.#head += 1;
          if (this.#head === this.#queue.length) {
            this.#queue = [];
            this.#head = 0;
          }
          return Promise.resolve({ value, done: false });
        }
        if (this.#ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => {
          this.#waiting = resolve;
        });
      },
      return: (): Promise<IteratorResult<Event>> => {
        this.#detached = true;
        this.#queue = [];
        this.#head = 0;
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}

/** The stream a provider returns for one model call; it ends with `done` or `error`. */
export class AssistantMessageEventStream extends EventStream<AssistantStreamEvent, AssistantMessage> {
  constructor() {
    super(
      (event) => event.type === 'done' || event.type === 'error',
      (event) => {
        if (event.type === 'done') return event.message;
        if (event.type === 'error') return event.error;
        throw new Error(`Not a terminal assistant event: ${event.type}`);
      },
    );
  }
}

/** Creates an empty assistant stream for a provider to push into. */
export function createAssistantMessageEventStream(): AssistantMessageEventStream {
  return new AssistantMessageEventStream();
}
