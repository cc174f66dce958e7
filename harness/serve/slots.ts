/**
 * `--parallel N` sequences and a bounded queue beyond them: up to `parallel` requests generate at once, up to `queue`
 * more wait in arrival order, and the next one is refused at once (the server answers 503 with Retry-After) rather
 * than queued without bound.
 */
export class QueueFull extends Error {
  override name = 'QueueFull';
}

export class Slots {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    readonly parallel: number,
    readonly queue: number,
  ) {}

  get busy(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  /** Run `fn` in a slot; throws QueueFull when every slot is taken and the queue is full. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.running >= this.parallel) {
      if (this.waiting.length >= this.queue)
        throw new QueueFull(`all ${this.parallel} sequence(s) busy and ${this.queue} request(s) queued`);
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else this.running++;
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      // The slot passes straight to the next request in line (running stays the same).
      if (next) next();
      else this.running--;
    }
  }
}
